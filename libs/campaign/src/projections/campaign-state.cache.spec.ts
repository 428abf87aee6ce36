import { emptyState, CampaignState } from '../domain/state';
import { evolve } from '../domain/evolve';
import { CampaignStateCache } from './campaign-state.cache';

const at = (id: string, version: number): CampaignState => ({ ...emptyState(id), version, name: `${id}@${version}` });

describe('CampaignStateCache', () => {
  it('answers only for the exact version it holds', () => {
    const cache = new CampaignStateCache();
    cache.put(at('a', 3), 100);
    expect(cache.get('a', 1, 3)?.name).toBe('a@3');
    expect(cache.get('a', 1, 4)).toBeNull();
    expect(cache.get('a', 1, 2)).toBeNull();
    expect(cache.get('b', 1, 3)).toBeNull();
  });

  it('keeps the newer state when an older one arrives late', () => {
    const cache = new CampaignStateCache();
    cache.put(at('a', 5), 100);
    cache.put(at('a', 4), 100);
    expect(cache.get('a', 1, 5)?.name).toBe('a@5');
    expect(cache.get('a', 1, 4)).toBeNull();
    cache.put(at('a', 6), 100);
    expect(cache.get('a', 1, 6)?.name).toBe('a@6');
  });

  it('§10: never serves a state of another timeline at a reused version; a new timeline replaces the old', () => {
    const cache = new CampaignStateCache();
    cache.put(at('a', 9), 100);
    expect(cache.get('a', 2, 9)).toBeNull();
    const rewound = { ...at('a', 4), name: 'rewound', timeline: 2 };
    cache.put(rewound, 100);
    expect(cache.get('a', 2, 4)?.name).toBe('rewound');
    expect(cache.get('a', 1, 9)).toBeNull();
    cache.put(at('a', 9), 100); // a late put from the old timeline does not bring it back
    expect(cache.get('a', 2, 4)?.name).toBe('rewound');
    cache.dropCampaign('a');
    expect(cache.get('a', 2, 4)).toBeNull();
  });

  it('evicts the least recently used campaigns past its size bound, and never holds one larger than the bound', () => {
    const cache = new CampaignStateCache(250);
    cache.put(at('a', 1), 100);
    cache.put(at('b', 1), 100);
    expect(cache.get('a', 1, 1)).not.toBeNull(); // a is now the most recently used
    cache.put(at('c', 1), 100);
    expect(cache.get('b', 1, 1)).toBeNull();
    expect(cache.get('a', 1, 1)).not.toBeNull();
    expect(cache.get('c', 1, 1)).not.toBeNull();
    cache.put(at('huge', 1), 251);
    expect(cache.get('huge', 1, 1)).toBeNull();
    expect(cache.get('a', 1, 1)).not.toBeNull();
  });

  it('freezes what it shares under test, so a caller that mutates a cached state fails loudly', () => {
    const cache = new CampaignStateCache();
    const state = evolve(at('a', 1), {
      type: 'LocationRegistered',
      data: { locationId: 'inn', name: 'Inn', dangerLevel: null },
    });
    cache.put({ ...state, version: 2 }, 100);
    const cached = cache.get('a', 1, 2)!;
    expect(() => {
      (cached.locations.inn.completedEncounters as string[]).push('x');
    }).toThrow(TypeError);
    // evolve still works on a frozen state: it copies what it changes.
    const next = evolve(cached, {
      type: 'LocationStateUpdated',
      data: { locationId: 'inn', dangerLevel: 'LOW', completedEncounterId: 'rats', fromDangerLevel: null },
    });
    expect(next.locations.inn.completedEncounters).toEqual(['rats']);
    expect(cached.locations.inn.completedEncounters).toEqual([]);
  });
});
