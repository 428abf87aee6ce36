import { ComposedContext, ComposedSection } from './context.composer';
import { renderJson, renderText } from './context.renderer';
import { ContextRequest } from './context.types';
import { dropCounts, trailerLine } from './trailer';

const section = (
  key: ComposedSection['key'],
  title: string,
  lines: string[],
  more: Partial<ComposedSection> = {},
): ComposedSection => ({
  key,
  title,
  entries: lines.map((text, i) => ({ ref: `${key}-${i}`, text, createdAt: '2026-03-01T10:00:00.000Z', tokens: 5 })),
  tokens: lines.length ? 3 + 5 * lines.length : 0,
  ...more,
});

const composed = (
  request: Partial<ContextRequest>,
  sections: ComposedSection[],
  more: Partial<ComposedContext> = {},
): ComposedContext => ({
  version: 12,
  timeline: 1,
  processedVersion: 11,
  request: { campaignId: 'c1', agent: 'narrative', limit: 3, legacy: true, ...request },
  sections,
  budget: null,
  used: sections.reduce((n, s) => n + s.tokens, 0),
  dropped: [],
  overBudget: false,
  trailer: null,
  extra: {},
  ...more,
});

const narrative = () => [
  section('location', 'Recent Location Memory', [
    '- 2026-03-01 10:00 — The party haggled.',
    '- 2026-03-01 11:00 — Mira left.',
  ]),
  section('npc', 'NPC Memory', []),
  section('world', 'World Memory', ['- 2026-03-01 12:00 — The relic was found.']),
];

describe('renderText', () => {
  it('renders `## <title>` blocks, blank line between, empty sections left out, no explain line for a §2 request', () => {
    expect(renderText(composed({}, narrative()))).toBe(
      [
        '## Recent Location Memory',
        '- 2026-03-01 10:00 — The party haggled.',
        '- 2026-03-01 11:00 — Mira left.',
        '',
        '## World Memory',
        '- 2026-03-01 12:00 — The relic was found.',
        '',
      ].join('\n'),
    );
  });

  it('is empty when every section is empty', () => {
    expect(
      renderText(
        composed({}, [section('location', 'Recent Location Memory', []), section('world', 'World Memory', [])]),
      ),
    ).toBe('');
  });

  it('renders an inline section as its line without a heading', () => {
    const text = renderText(
      composed(
        { legacy: false },
        [section('hud', 'HUD', ['HUD: HP 3'], { inline: true }), section('world', 'World Memory', ['- w'])],
        { budget: 4000 },
      ),
      false,
    );
    expect(text).toBe('HUD: HP 3\n\n## World Memory\n- w\n');
  });

  it('prints a timeline section oldest first, one `### group` header per run of a group, ungrouped entries first', () => {
    const recall = section('recall', 'Recalled', [], {
      timeline: true,
      entries: [
        { ref: '9', text: 'Aria: the vault', group: 'round 3 · 2 May 2026', seq: 9, rank: 1 },
        { ref: 'm1', text: '- [2 May 2026] Memory (npc mira): keys', rank: 2 },
        { ref: '2', text: 'dm: the cellar', group: 'round 1 · 1 May 2026', seq: 2, rank: 3 },
        { ref: '10', text: 'Mira: no', group: 'round 3 · 2 May 2026', seq: 10, rank: 4 },
      ],
    });
    expect(renderText(composed({ legacy: false }, [recall], { budget: 4000 }), false)).toBe(
      [
        '## Recalled',
        '- [2 May 2026] Memory (npc mira): keys',
        '### round 1 · 1 May 2026',
        'dm: the cellar',
        '### round 3 · 2 May 2026',
        'Aria: the vault',
        'Mira: no',
        '',
      ].join('\n'),
    );
  });

  it('ends a budgeted request with its one counted trailer line: counts per reason, never refs', () => {
    const dropped = [
      { section: 'recent' as const, ref: '4', tokens: 12, reason: 'budget' as const },
      { section: 'recent' as const, ref: '7', tokens: 9, reason: 'compacted' as const },
    ];
    const line = trailerLine(30, 100, dropCounts(dropped), false);
    expect(line).toBe('<!-- context: 30/100 tokens; dropped 2 (compacted 1, budget 1) -->');
    const c = composed({ legacy: false, budget: 100 }, narrative(), {
      budget: 100,
      used: 30,
      dropped,
      trailer: { line, tokens: 20 },
    });
    const lines = renderText(c).trimEnd().split('\n');
    expect(lines[lines.length - 1]).toBe(line);
    expect(lines.filter((l) => l.startsWith('<!--'))).toHaveLength(1);
    expect(renderJson(c).tokens).toEqual({ budget: 100, used: 30, trailer: 20 });
  });

  it('says when the context is over budget, and omits the line with explain=false', () => {
    const line = trailerLine(30, 10, new Map(), true);
    expect(line).toBe('<!-- context: 30/10 tokens; dropped 0; over budget -->');
    const c = composed({ legacy: false }, narrative(), {
      budget: 10,
      used: 30,
      overBudget: true,
      trailer: { line, tokens: 9 },
    });
    expect(renderText(c)).toContain(line);
    expect(renderText(c, false)).not.toContain('<!--');
  });
});

describe('renderJson', () => {
  it('a §2 request gets exactly {version, processedVersion, sections:[{title, entries}]}, empty sections included', () => {
    const json = renderJson(composed({}, narrative()));
    expect(Object.keys(json).sort()).toEqual(['processedVersion', 'sections', 'version']);
    expect(json).toMatchObject({ version: 12, processedVersion: 11 });
    const sections = json.sections as Array<Record<string, unknown>>;
    expect(sections.map((s) => Object.keys(s).sort())).toEqual([
      ['entries', 'title'],
      ['entries', 'title'],
      ['entries', 'title'],
    ]);
    expect(sections.map((s) => s.title)).toEqual(['Recent Location Memory', 'NPC Memory', 'World Memory']);
    expect(sections[0].entries).toEqual([
      { ref: 'location-0', text: '- 2026-03-01 10:00 — The party haggled.', createdAt: '2026-03-01T10:00:00.000Z' },
      { ref: 'location-1', text: '- 2026-03-01 11:00 — Mira left.', createdAt: '2026-03-01T10:00:00.000Z' },
    ]);
  });

  it('a §8 request gets keys, token counts, budget, dropped and extra fields', () => {
    const c = composed({ legacy: false, agent: 'dm', viewer: 'aria' }, narrative(), {
      budget: 500,
      used: 24,
      dropped: [{ section: 'recent', ref: '3', tokens: 7, reason: 'budget' }],
      extra: { digest: { version: 'v', injected: false } },
    });
    const json = renderJson(c);
    expect(json).toMatchObject({
      version: 12,
      processedVersion: 11,
      agent: 'dm',
      viewer: 'aria',
      tokens: { budget: 500, used: 24 },
      dropped: [{ section: 'recent', ref: '3', tokens: 7, reason: 'budget' }],
      overBudget: false,
      digest: { version: 'v', injected: false },
    });
    expect((json.sections as Array<Record<string, unknown>>).map((s) => [s.key, s.tokens])).toEqual([
      ['location', 13],
      ['npc', 0],
      ['world', 8],
    ]);
  });
});
