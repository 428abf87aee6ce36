import { TiktokenCounter } from '@app/context';
import { bigMap, ship, status } from '../../../../test/support/game-fixtures';
import { GameStateInput, renderGameState, SnapshotView } from './game-state.renderer';
import { ToolRule } from './staleness';

const counter = new TiktokenCounter();
const now = new Date('2026-01-01T00:10:00Z');
const snap = (
  tool: string,
  tick: number | null,
  content: unknown,
  extra: Partial<SnapshotView> = {},
): SnapshotView => ({
  tool,
  tick,
  capturedAt: '2026-01-01T00:09:00Z',
  stale: false,
  content,
  ...extra,
});
const input = (snapshots: SnapshotView[], extra: Partial<GameStateInput> = {}): GameStateInput => ({
  snapshots,
  rules: {},
  tick: null,
  now,
  tickSeconds: 10,
  maxTokens: 500,
  count: (t) => counter.count(t),
  ...extra,
});
const textOf = (r: ReturnType<typeof renderGameState>) => [`## ${r.title}`, ...r.entries.map((e) => e.text)].join('\n');

describe('Current Game State rendering', () => {
  it('renders header, blocks with their own recency, and what to call', () => {
    const r = renderGameState(
      input(
        [
          snap('get_status', 100, {
            credits: 1200,
            docked: true,
            location: { system: 'Sol', poi: 'Belt 4' },
            cargo: ['ore', 'ice'],
          }),
          snap('get_ship', 98, { hull: 90, modules: [{ id: 'a' }, { id: 'b' }] }),
        ],
        { tick: 102 },
      ),
    );
    expect(textOf(r)).toBe(
      [
        '## Current Game State (updated 2 ticks ago)',
        'Last updated: 2 ticks ago (20 seconds)',
        '### Ship (get_ship — 4 ticks ago)',
        'hull: 90',
        'modules: 2 items',
        '### Status (get_status — 2 ticks ago)',
        'credits: 1200',
        'docked: true',
        'location.system: Sol',
        'location.poi: Belt 4',
        'cargo: 2 items (ore, ice)',
        'To update: call get_ship, get_status',
      ].join('\n'),
    );
  });

  it('shows a 190 KB map as a few lines, never its content', () => {
    const map = bigMap(487);
    expect(JSON.stringify(map).length).toBeGreaterThan(180_000);
    const r = renderGameState(input([snap('get_map', 50, map)], { tick: 100 }));
    const block = r.entries.find((e) => e.ref === 'get_map')!.text;
    expect(block.split('\n')).toEqual([
      '### Map (get_map — 50 ticks ago)',
      'galaxy: Orion Spur',
      'version: 3',
      'systems: 487 items',
    ]);
    expect(counter.count(textOf(r))).toBeLessThan(100);
  });

  it('lists stale tools (flagged or over maxAgeTicks) and asks for them only', () => {
    const rules: Record<string, ToolRule> = {
      get_map: { tool: 'get_map', title: 'Galaxy', fields: ['galaxy'], invalidatedBy: null, maxAgeTicks: 20 },
    };
    const r = renderGameState(
      input(
        [
          snap('get_map', 50, bigMap(3)),
          snap('get_status', 100, { credits: 1 }, { stale: true }),
          snap('get_ship', 100, { hull: 1 }),
        ],
        { tick: 100, rules },
      ),
    );
    expect(r.stale).toEqual(['get_map', 'get_status']);
    const text = textOf(r);
    expect(text).toContain('### Galaxy (get_map — 50 ticks ago)\ngalaxy: Orion Spur\n');
    expect(text).toContain(
      'Stale: get_map is 50 ticks old — refresh before relying on it\nStale: get_status is 0 ticks old — refresh before relying on it',
    );
    expect(text.endsWith('To update: call get_map, get_status')).toBe(true);
  });

  it('falls back to the wall clock when ticks are missing', () => {
    const r = renderGameState(
      input([snap('get_status', null, { credits: 5 }, { capturedAt: '2026-01-01T00:09:15Z' })]),
    );
    expect(r.title).toBe('Current Game State (updated 45 seconds ago)');
    expect(r.entries[0].text).toBe('Last updated: 45 seconds ago');
    expect(r.entries[1].text.split('\n')[0]).toBe('### Status (get_status — 45 seconds ago)');
  });

  it('over STATE_MAX_TOKENS, shortens blocks to their header oldest first and reports them', () => {
    const snaps = [
      snap('get_status', 90, status(1)),
      snap('get_ship', 80, ship(1)),
      snap('get_cargo', 99, { items: ['ore'], used: 1 }),
    ];
    const full = renderGameState(input(snaps, { maxTokens: 100_000 }));
    const fullTokens =
      counter.count(`## ${full.title}\n`) + full.entries.reduce((n, e) => n + counter.count(`${e.text}\n`), 0);
    const r = renderGameState(input(snaps, { maxTokens: 200 }));
    expect(r.shortened.map((s) => s.ref)).toEqual(['get_ship', 'get_status']);
    expect(r.entries.find((e) => e.ref === 'get_ship')!.text).toBe('### Ship (get_ship — 19 ticks ago)');
    expect(r.entries.find((e) => e.ref === 'get_cargo')!.text).toContain('used: 1');
    const used = counter.count(`## ${r.title}\n`) + r.entries.reduce((n, e) => n + counter.count(`${e.text}\n`), 0);
    expect(used).toBeLessThanOrEqual(200);
    expect(fullTokens - used).toBe(r.shortened.reduce((n, s) => n + s.tokens, 0));
  });
});
