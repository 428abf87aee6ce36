import { CampaignSnapshot, currentHorizon, emptyState } from '@app/campaign';
import type { MemoryReader, MemoryView } from '@app/memory';
import { ContextComposer, DEFAULT_RECALL_SHARE } from './context.composer';
import { ContextSection as Section } from './context.types';
import { TokenCounter as Counter } from './token-counter.port';

/** These specs test the drop order itself: MIN_RECENT_MESSAGES off (its own spec sets it). */
const composerOf = (counter: Counter, sections: Section[], share = DEFAULT_RECALL_SHARE) =>
  new ContextComposer(counter, sections, share, 0, { countTrailer: false });
import {
  BuiltSection,
  ContextRequest,
  ContextSection,
  ContextSnapshot,
  SectionEntry,
  SectionKey,
} from './context.types';
import { oneLine, toMinute } from './format';
import { memoryLine } from './sections/memory-section';
import { LocationSection } from './sections/location.section';
import { NpcSection } from './sections/npc.section';
import { WorldSection } from './sections/world.section';
import { TokenCounter } from './token-counter.port';

/** One token per whitespace-separated word: easy to count by eye. */
class WordCounter implements TokenCounter {
  count(text: string): number {
    return text.split(/\s+/).filter(Boolean).length;
  }
}

/** A section that returns fixed entries (fresh copies on every build, as real sections do). */
class FixedSection implements ContextSection {
  constructor(
    readonly key: SectionKey,
    readonly title: string,
    private readonly entries: SectionEntry[] | null,
    private readonly more: Partial<BuiltSection> = {},
  ) {}
  async build(): Promise<BuiltSection | null> {
    if (this.entries === null) return null;
    return {
      key: this.key,
      title: this.title,
      entries: this.entries.map((e) => ({ ...e })),
      ...structuredClone(this.more),
    };
  }
}

const request = (over: Partial<ContextRequest> = {}): ContextRequest => ({
  campaignId: 'c1',
  agent: 'narrative',
  limit: 3,
  legacy: false,
  ...over,
});

const snapshot = (over: Partial<CampaignSnapshot['state']> = {}): ContextSnapshot => ({
  state: { ...emptyState('c1'), version: 7, ...over },
  horizon: currentHorizon({ ...emptyState('c1'), version: 7, ...over }),
  processedVersion: 5,
});

/** `n` entries whose text has `words` words each; createdAt orders them oldest first. */
const entries = (prefix: string, n: number, words = 3, day = 10): SectionEntry[] =>
  Array.from({ length: n }, (_, i) => ({
    ref: `${prefix}${i + 1}`,
    text: ['-', ...Array.from({ length: words - 2 }, () => prefix), `${prefix}${i + 1}`].join(' '),
    createdAt: `2026-03-${String(day + i).padStart(2, '0')}T10:00:00.000Z`,
  }));

describe('ContextComposer', () => {
  const counter = new WordCounter();

  it('returns sections in canonical order whatever the registration or include order', async () => {
    const composer = composerOf(counter, [
      new FixedSection('recent', 'Recent Messages', entries('r', 1)),
      new FixedSection('world', 'World Memory', entries('w', 1)),
      new FixedSection('bible', 'Campaign Bible', entries('b', 1)),
    ]);
    const c = await composer.compose(request({ include: ['recent', 'bible', 'world'] }), snapshot(), null);
    expect(c.sections.map((s) => s.key)).toEqual(['bible', 'world', 'recent']);
  });

  it('the narrative preset is location, npc, world — nothing else', async () => {
    const composer = composerOf(counter, [
      new FixedSection('bible', 'Campaign Bible', entries('b', 1)),
      new FixedSection('world', 'World Memory', entries('w', 1)),
      new FixedSection('npc', 'NPC Memory', entries('n', 1)),
      new FixedSection('location', 'Recent Location Memory', entries('l', 1)),
      new FixedSection('recent', 'Recent Messages', entries('r', 1)),
    ]);
    const c = await composer.compose(request(), snapshot(), null);
    expect(c.sections.map((s) => s.key)).toEqual(['location', 'npc', 'world']);
  });

  it('include returns exactly the listed sections; unregistered keys and null builds are left out', async () => {
    const composer = composerOf(counter, [
      new FixedSection('world', 'World Memory', entries('w', 1)),
      new FixedSection('npc', 'NPC Memory', null),
    ]);
    const c = await composer.compose(request({ include: ['world', 'npc', 'glossary'] }), snapshot(), null);
    expect(c.sections.map((s) => s.key)).toEqual(['world']);
  });

  it('counts each entry with its newline and each section with its heading; an empty section counts 0', async () => {
    const composer = composerOf(counter, [
      new FixedSection('world', 'World Memory', [{ ref: 'w1', text: '- one two three' }]),
      new FixedSection('location', 'Recent Location Memory', []),
      new FixedSection('hud', 'HUD', [{ ref: 'hud', text: 'HUD: HP 3' }], { inline: true }),
    ]);
    const c = await composer.compose(request({ include: ['world', 'location', 'hud'] }), snapshot(), null);
    const byKey = Object.fromEntries(c.sections.map((s) => [s.key, s]));
    expect(byKey.world.entries[0].tokens).toBe(4);
    expect(byKey.world.tokens).toBe(3 + 4); // "## World Memory" + entry
    expect(byKey.location.tokens).toBe(0);
    expect(byKey.hud.tokens).toBe(3); // inline: no heading
    expect(c.used).toBe(7 + 3);
  });

  it('without a budget nothing is dropped', async () => {
    const composer = composerOf(counter, [new FixedSection('recent', 'Recent Messages', entries('r', 50))]);
    const c = await composer.compose(request({ include: ['recent'] }), snapshot(), null);
    expect(c).toMatchObject({ budget: null, dropped: [], overBudget: false, version: 7, processedVersion: 5 });
    expect(c.sections[0].entries).toHaveLength(50);
  });

  it('nothing is dropped when everything fits', async () => {
    const composer = composerOf(counter, [new FixedSection('recent', 'Recent Messages', entries('r', 3))]);
    const c = await composer.compose(request({ include: ['recent'] }), snapshot(), 1000);
    expect(c).toMatchObject({ budget: 1000, used: 3 + 9, dropped: [], overBudget: false });
  });

  describe('over budget', () => {
    // bible 3+3 = 6 (never dropped); location: heading 4 + 2×3; world: 3 + 2×3; recall: 2 + 3×3; recent: 3 + 3×3.
    const sections = () => [
      new FixedSection('bible', 'Campaign Bible', [{ ref: 'bible', text: '- the lore' }]),
      new FixedSection('location', 'Recent Location Memory', entries('l', 2, 3, 10)),
      new FixedSection('world', 'World Memory', [
        { ref: 'w1', text: '- w w1', createdAt: '2026-03-09T10:00:00.000Z' },
        { ref: 'w2', text: '- w w2', createdAt: '2026-03-12T10:00:00.000Z' },
      ]),
      new FixedSection('recall', 'Recalled', entries('k', 3)),
      new FixedSection('recent', 'Recent Messages', entries('r', 3)),
    ];
    const include: SectionKey[] = ['bible', 'location', 'world', 'recall', 'recent'];
    const total = 6 + 10 + 9 + 11 + 12;

    async function composeWith(budget: number) {
      return composerOf(counter, sections()).compose(request({ include }), snapshot(), budget);
    }

    it('drops recent messages oldest first and stops as soon as it fits', async () => {
      const c = await composeWith(total - 4);
      expect(c.dropped).toEqual([
        { section: 'recent', ref: 'r1', tokens: 3, reason: 'budget' },
        { section: 'recent', ref: 'r2', tokens: 3, reason: 'budget' },
      ]);
      expect(c.used).toBe(total - 6);
      expect(c.sections.find((s) => s.key === 'recent')!.entries.map((e) => e.ref)).toEqual(['r3']);
    });

    it('then recall, lowest rank (last) first, then memories oldest first across location, npc and world', async () => {
      const c = await composeWith(6 + 5 + 3 + 3);
      expect(c.dropped.map((d) => `${d.section}:${d.ref}`)).toEqual([
        'recent:r1',
        'recent:r2',
        'recent:r3',
        'recall:k3',
        'recall:k2',
        'recall:k1',
        'world:w1',
        'location:l1',
        'location:l2',
      ]);
      // §8 "token counts that add up": the last entry of an emptied section takes its heading along.
      expect(c.dropped.map((d) => d.tokens)).toEqual([3, 3, 3 + 3, 3, 3, 3 + 2, 3, 3, 3 + 4]);
      expect(c.dropped.every((d) => d.reason === 'budget')).toBe(true);
      expect(c.sections.map((s) => [s.key, s.entries.map((e) => e.ref)])).toEqual([
        ['bible', ['bible']],
        ['location', []],
        ['world', ['w2']],
        ['recall', []],
        ['recent', []],
      ]);
    });

    it('used is the sum of what is left; an emptied section costs nothing, not even its heading', async () => {
      const c = await composeWith(6 + 5 + 3 + 3);
      expect(c.used).toBe(c.sections.reduce((n, s) => n + s.tokens, 0));
      expect(c.used).toBe(6 + 0 + (3 + 3));
      expect(c.used).toBeLessThanOrEqual(17);
      expect(c.overBudget).toBe(false);
      const droppedTokens = c.dropped.reduce((n, d) => n + d.tokens, 0);
      expect(total - droppedTokens - c.used).toBe(0); // emptied sections' headings are counted in their last drop
    });

    it('never drops the bible; when it alone exceeds the budget, everything droppable goes and overBudget is set', async () => {
      const c = await composeWith(5);
      expect(c.sections.find((s) => s.key === 'bible')!.entries).toHaveLength(1);
      expect(c.sections.filter((s) => s.key !== 'bible').every((s) => s.entries.length === 0)).toBe(true);
      expect(c.dropped).toHaveLength(10);
      expect(c).toMatchObject({ used: 6, budget: 5, overBudget: true });
    });
  });

  it('reports entries a section dropped itself (compaction) before budget drops, and merges extra fields', async () => {
    const composer = composerOf(counter, [
      new FixedSection('recent', 'Recent Messages', entries('r', 2), {
        dropped: [{ section: 'recent', ref: '4', tokens: 9, reason: 'compacted' }],
      }),
      new FixedSection('digest', 'World State', [{ ref: 'digest', text: 'x' }], {
        extra: { digest: { version: 'abc', injected: true } },
      }),
    ]);
    const c = await composer.compose(request({ include: ['recent', 'digest'] }), snapshot(), 4 + 3 + 3);
    expect(c.dropped).toEqual([
      { section: 'recent', ref: '4', tokens: 9, reason: 'compacted' },
      { section: 'recent', ref: 'r1', tokens: 3, reason: 'budget' },
    ]);
    expect(c.extra).toEqual({ digest: { version: 'abc', injected: true } });
  });
});

describe('format', () => {
  it('toMinute cuts an ISO time to the minute and leaves other text alone', () => {
    expect(toMinute('2026-05-01T10:15:42.123Z')).toBe('2026-05-01 10:15');
    expect(toMinute('2026-05-01T10:15')).toBe('2026-05-01 10:15');
    expect(toMinute('Year of the Dragon')).toBe('Year of the Dragon');
  });

  it('oneLine collapses newlines, tabs and runs of spaces', () => {
    expect(oneLine('  a\nb\r\n\tc   d \n')).toBe('a b c d');
  });

  it('memoryLine dates by the last message of the selection, by clock, on one line (§8 story time)', () => {
    const m = memory('world', 'world', 'The party left.\n\nMira stayed.', '2026-05-01T10:15:42.000Z');
    const last = { at: '1247-03-14T20:00:00.000Z', round: 3, storyTime: 'Day 3 of Frostmoon, dusk' };
    expect(memoryLine(m, last, 'story')).toBe('- Day 3 of Frostmoon, dusk — The party left. Mira stayed.');
    expect(memoryLine(m, last, 'wall')).toBe('- 14 March 1247 — The party left. Mira stayed.');
    expect(memoryLine(m, last, 'none')).toBe('- The party left. Mira stayed.');
    // A server-filled `at` is never printed: the round says when.
    expect(memoryLine(m, { ...last, storyTime: undefined, atFilled: true }, 'story')).toBe(
      '- round 3 — The party left. Mira stayed.',
    );
  });
});

/** A stand-in for the memory read side, holding memories in recording order. */
class FakeMemories {
  readonly calls: Array<{ scope: string; subjectId: string; limit: number }> = [];
  constructor(private readonly all: MemoryView[]) {}
  async latest(_campaignId: string, scope: string, subjectId: string, limit: number): Promise<MemoryView[]> {
    this.calls.push({ scope, subjectId, limit });
    return this.all
      .filter((m) => m.scope === scope && m.subjectId === subjectId)
      .reverse()
      .slice(0, limit);
  }
}

let seq = 0;
const memory = (scope: string, subjectId: string, summary: string, createdAt: string): MemoryView => ({
  id: `m${++seq}`,
  scope,
  subjectId,
  summary,
  tags: [],
  locationId: null,
  npcIds: [],
  questId: null,
  encounterId: null,
  sinceMessageIndex: 0,
  throughMessageIndex: 0,
  sinceTimestamp: createdAt,
  createdAt,
  triggerVersion: seq,
  revision: 1,
  origin: 'model',
});

describe('the narrative memory sections', () => {
  const tavernState = {
    currentLocationId: 'tavern',
    npcs: {
      zed: { id: 'zed', name: 'Zed', aliases: [], locationId: 'tavern' },
      mira: { id: 'mira', name: 'Mira', aliases: [], locationId: 'tavern' },
      cara: { id: 'cara', name: 'Cara', aliases: [], locationId: 'docks' },
    },
  };
  const store = () =>
    new FakeMemories([
      memory('location', 'tavern', 'First visit.', '2026-03-01T09:00:00.000Z'),
      memory('location', 'docks', 'Docks visit.', '2026-03-01T09:30:00.000Z'),
      memory('location', 'tavern', 'Second\nvisit.', '2026-03-01T10:00:59.000Z'),
      memory('location', 'tavern', 'Third visit.', '2026-03-01T11:00:00.000Z'),
      memory('location', 'tavern', 'Fourth visit.', '2026-03-01T12:00:00.000Z'),
      memory('npc', 'mira', 'Mira met the party.', '2026-03-01T10:00:00.000Z'),
      memory('npc', 'zed', 'Zed lost at cards.', '2026-03-01T10:00:00.000Z'),
      memory('npc', 'cara', 'Cara sold a boat.', '2026-03-01T10:00:00.000Z'),
      memory('world', 'world', 'The relic was found.', '2026-03-01T13:00:00.000Z'),
    ]);

  /** No message to date a memory by: its line falls back to the day it was recorded. */
  const noMessages = { messagesByIndex: async () => [] };
  const composerOver = (memories: FakeMemories) => {
    const reader = memories as unknown as MemoryReader;
    return composerOf(new WordCounter(), [
      new LocationSection(reader, noMessages),
      new NpcSection(reader, noMessages),
      new WorldSection(reader, noMessages),
    ]);
  };

  it('shows the last N of each scope oldest → newest, one line each', async () => {
    const memories = store();
    const c = await composerOver(memories).compose(request({ legacy: true, limit: 3 }), snapshot(tavernState), null);
    expect(c.sections.map((s) => [s.title, s.entries.map((e) => e.text)])).toEqual([
      [
        'Recent Location Memory',
        ['- 1 March 2026 — Second visit.', '- 1 March 2026 — Third visit.', '- 1 March 2026 — Fourth visit.'],
      ],
      ['NPC Memory', ['- 1 March 2026 — Mira met the party.', '- 1 March 2026 — Zed lost at cards.']],
      ['World Memory', ['- 1 March 2026 — The relic was found.']],
    ]);
    expect(memories.calls.every((call) => call.limit === 3)).toBe(true);
  });

  it('limit changes how many entries each scope shows', async () => {
    const c = await composerOver(store()).compose(request({ legacy: true, limit: 1 }), snapshot(tavernState), null);
    expect(c.sections[0].entries.map((e) => e.text)).toEqual(['- 1 March 2026 — Fourth visit.']);
  });

  it('NPC memory covers only the NPCs now at the current location, ordered by name', async () => {
    const memories = store();
    await composerOver(memories).compose(request({ legacy: true }), snapshot(tavernState), null);
    expect(memories.calls.filter((call) => call.scope === 'npc').map((call) => call.subjectId)).toEqual([
      'mira',
      'zed',
    ]);
  });

  it('with the party nowhere, location and NPC sections are empty and world memory still shows', async () => {
    const c = await composerOver(store()).compose(
      request({ legacy: true }),
      snapshot({ npcs: tavernState.npcs }),
      null,
    );
    expect(c.sections.map((s) => [s.key, s.entries.length])).toEqual([
      ['location', 0],
      ['npc', 0],
      ['world', 1],
    ]);
  });

  describe('no sentence twice (DESIGN §8)', () => {
    const composeDm = (sections: ContextSection[]) =>
      composerOf(new WordCounter(), sections).compose(request({ agent: 'dm' }), snapshot(), 10_000);

    it('removes from summaries what an earlier entry or a message holds, labels aside; an emptied entry is a `duplicate` drop', async () => {
      const c = await composeDm([
        new FixedSection('previously', 'Previously', [
          { ref: 'through:4', text: 'Aria: I slide three coins to Mira. The rain stops.' },
        ]),
        new FixedSection('location', 'Recent Location Memory', [
          {
            ref: 'm1',
            createdAt: '2026-03-01T10:00:00.000Z',
            text: '- 1 March 2026 — At The Inn: Aria: I slide  three coins to MIRA. Mira pockets the coins. Brannoc waits.',
          },
          {
            ref: 'm2',
            createdAt: '2026-03-02T10:00:00.000Z',
            text: '- 2026-03-02 10:00 — At The Inn: The rain stops.',
          },
        ]),
        new FixedSection('recent', 'Recent Messages', [
          { ref: '9', text: '[9] Brannoc: Brannoc waits.', body: 'Brannoc waits.' },
        ]),
      ]);
      const location = c.sections.find((x) => x.key === 'location')!;
      // The header moves to the first kept sentence; the removed sentence's speaker label does not (Mira said the next
      // one).
      expect(location.entries.map((e) => e.text)).toEqual(['- 1 March 2026 — At The Inn: Mira pockets the coins.']);
      expect(c.dropped).toEqual([{ section: 'location', ref: 'm2', tokens: 10, reason: 'duplicate' }]);
      // Messages are never cut.
      expect(c.sections.find((x) => x.key === 'recent')!.entries[0].text).toBe('[9] Brannoc: Brannoc waits.');
      expect(c.used).toBe(c.sections.reduce((n, x) => n + x.tokens, 0));
    });
  });
});
