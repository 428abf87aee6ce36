import {
  ALL_MESSAGES,
  BIBLE_DM,
  BIBLE_PUBLIC,
  buildLeakCampaign,
  EchoSummarizer,
  FACT,
  markersIn,
  SCRIPT,
  sorted,
  union,
  Viewer,
  visibleItems,
  witnessedBy,
} from './support/leak-scenario';
import { expectProblem } from './support/rejection';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(120_000);

const FULL = 'full-token-0123456789abcdef';
const ARIA = 'aria-token-0123456789abcdef';
const MIRA = 'mira-token-0123456789abcdef';
const VEX = 'vex-token-0123456789abcdef';
const BOUND: Record<Viewer, string> = { 'player:aria': ARIA, 'npc:mira': MIRA, 'npc:vex': VEX };
const cid = 'leak-a';
const ALL_QUERY = encodeURIComponent([...ALL_MESSAGES].join(' '));

/**
 * Issue 18's leak suite: for every read route, with a full key, a viewer-bound key and a viewer named by a full key,
 * across public, private and dm-only messages, the bible's dm-only part, glossary, memories, Previously and recall,
 * the markers each caller sees equal what DESIGN §8 allows, computed here from the script (test/support/leak-scenario).
 * Contexts without a viewer (the public view) are in test/leak-public-view.e2e-spec.ts.
 */
describe('leak suite: who may read what', () => {
  let t: TestApp;
  const get = async (token: string, path: string) => t.http('GET', `/v1/campaigns/${cid}${path}`, undefined, { authorization: `Bearer ${token}` });
  const seen = async (token: string, path: string) => {
    const res = await get(token, path);
    if (res.status !== 200) throw new Error(`GET ${path} → ${res.status} ${res.text.slice(0, 300)}`);
    return markersIn(res.text);
  };
  /** The admin's own view of a list route: each item's text, for the per-item rule (every input witnessed). */
  const items = async (path: string, pick: (item: any) => string) => ((await get(FULL, path)).body.items as any[]).map(pick);
  let memories: string[] = [];
  let glossary: { text: string; coinedMessageIndex: number | null }[] = [];
  let markerOfIndex: Map<number, string>;

  beforeAll(async () => {
    t = await startTestApp({
      summarizer: new EchoSummarizer(),
      env: { LOREKEEPER_API_KEYS: `${FULL}, ${ARIA}=leak-*@player:aria, ${MIRA}=leak-*@npc:mira, ${VEX}=leak-*@npc:vex`, HOT_ROUNDS: '1', SUMMARY_INTERVAL_ROUNDS: '1' },
    });
    await buildLeakCampaign(t, cid, { perRoleMemory: true, headers: { authorization: `Bearer ${FULL}` } });
    memories = await items('/memories?limit=1000', (m) => m.summary);
    glossary = ((await get(FULL, '/glossary')).body.items as any[]).map((g) => ({ text: `${g.term} ${g.definition}`, coinedMessageIndex: g.coinedMessageIndex }));
    const messages = (await get(FULL, '/messages')).body.items as { index: number; content: string }[];
    markerOfIndex = new Map(messages.map((m) => [m.index, [...markersIn(m.content)][0]]));
  });
  afterAll(async () => t.close());

  it('builds the campaign it claims: every message, memories, a glossary and Previously exist', async () => {
    expect(sorted(await seen(FULL, '/messages'))).toEqual(sorted(ALL_MESSAGES));
    expect(memories.length).toBeGreaterThan(0);
    expect(glossary.length).toBeGreaterThan(0);
    const dm = await get(FULL, '/context?agent=dm&budget=200000&limit=100&format=json');
    expect(dm.body.sections.map((s: { key: string }) => s.key)).toEqual(expect.arrayContaining(['bible', 'glossary', 'previously', 'recent']));
  });

  describe('a full key reads everything on the raw routes', () => {
    it.each([
      ['messages', '/messages', () => ALL_MESSAGES],
      ['memories', '/memories?limit=1000', () => union(...memories.map(markersIn))],
      ['glossary', '/glossary', () => union(...glossary.map((g) => markersIn(g.text)))],
      ['bible', '/bible', () => new Set([BIBLE_PUBLIC, BIBLE_DM])],
      ['game events', '/events?limit=1000', () => union(ALL_MESSAGES, [BIBLE_PUBLIC, BIBLE_DM, FACT])],
      ['digest', '/digest', () => new Set([FACT])],
      ['facts', '/facts', () => new Set([FACT])],
    ])('%s', async (_label, path, expected) => {
      expect(sorted(await seen(FULL, path))).toEqual(sorted(expected()));
    });

    it('search finds every message and memory', async () => {
      for (const marker of ALL_MESSAGES) {
        expect((await get(FULL, `/search?q=${marker}`)).body.items.length).toBeGreaterThan(0);
        const inMemories = memories.some((m) => markersIn(m).has(marker));
        expect((await get(FULL, `/search?q=${marker}&in=memories`)).body.items.length > 0).toBe(inMemories);
      }
    });

    it('the dm context holds every message, both bible parts and the fact', async () => {
      const expected = union(ALL_MESSAGES, [BIBLE_PUBLIC, BIBLE_DM, FACT]);
      expect(sorted(await seen(FULL, `/context?agent=dm&budget=200000&limit=100&format=text&query=${ALL_QUERY}`))).toEqual(sorted(expected));
    });
  });

  /** What DESIGN lets `viewer` see through each route, computed from the script and the admin's item lists. */
  const allowed = (viewer: Viewer) => {
    const witnessed = witnessedBy(viewer);
    const glossaryFor = union(...glossary.filter((g) => g.coinedMessageIndex !== null && witnessed.has(markerOfIndex.get(g.coinedMessageIndex)!)).map((g) => markersIn(g.text)));
    return { witnessed, memories: visibleItems(memories, witnessed), glossary: visibleItems(glossary.map((g) => g.text), glossaryFor) };
  };

  describe.each(Object.keys(BOUND) as Viewer[])('a key bound to %s', (viewer) => {
    const token = () => BOUND[viewer];
    const [kind, id] = viewer.split(':');

    it('messages: exactly the witnessed ones', async () => {
      expect(sorted(await seen(token(), '/messages'))).toEqual(sorted(allowed(viewer).witnessed));
    });

    it('memories: exactly those whose every input it witnessed', async () => {
      expect(sorted(await seen(token(), '/memories?limit=1000'))).toEqual(sorted(allowed(viewer).memories));
    });

    it('glossary: exactly the terms coined in witnessed messages', async () => {
      expect(sorted(await seen(token(), '/glossary'))).toEqual(sorted(allowed(viewer).glossary));
    });

    it('bible: the public part only', async () => {
      expect(sorted(await seen(token(), '/bible'))).toEqual([BIBLE_PUBLIC]);
    });

    it('digest and facts: the world state every preset shows', async () => {
      expect(sorted(await seen(token(), '/digest'))).toEqual([FACT]);
      expect(sorted(await seen(token(), '/facts'))).toEqual([FACT]);
    });

    it('search: hits in witnessed messages and visible memories only', async () => {
      const a = allowed(viewer);
      for (const marker of ALL_MESSAGES) {
        expect([marker, (await get(token(), `/search?q=${marker}`)).body.items.length > 0]).toEqual([marker, a.witnessed.has(marker)]);
        expect([marker, (await get(token(), `/search?q=${marker}&in=memories`)).body.items.length > 0]).toEqual([marker, a.memories.has(marker)]);
      }
    });

    it('context (recall, glossary, memories, Previously, recent): nothing it did not witness', async () => {
      const got = await seen(token(), `/context?budget=200000&limit=100&format=text&query=${ALL_QUERY}`);
      const ceiling = union(allowed(viewer).witnessed, [BIBLE_PUBLIC, FACT]);
      expect(sorted([...got].filter((m) => !ceiling.has(m)))).toEqual([]);
      // What the current round showed it is always there (Recent Messages).
      for (const marker of witnessedBy(viewer, 2)) expect(got).toContain(marker);
      if (kind === 'player') expect(sorted(got)).toEqual(sorted(ceiling)); // its own Previously holds round 1
      // A full key naming the viewer gets the same context.
      expect(sorted(await seen(FULL, `/context?agent=${kind}&viewer=${id}&budget=200000&limit=100&format=text&query=${ALL_QUERY}`))).toEqual(sorted(got));
    });

    it.each([
      ['the dm context', '/context?agent=dm'],
      ['the narrative context', '/context?agent=narrative'],
      ['the tool-agent context', '/context?agent=agent'],
      ['game events', '/events'],
      ['memory events', '/events?stream=memory'],
      ['the stream', '/stream'],
      ['usage', '/usage'],
      ['reasoning search', '/search?q=MKDMNOTEONE&in=reasoning'],
    ])('%s: 403 VIEWER_BOUND', async (_label, path) => {
      expectProblem(await get(token(), path), 403, 'VIEWER_BOUND');
    });

    it('another viewer’s context: 403 VIEWER_BOUND', async () => {
      const other = (Object.keys(BOUND) as Viewer[]).find((v) => v !== viewer)!;
      const [otherKind, otherId] = other.split(':');
      expectProblem(await get(token(), `/context?agent=${otherKind}&viewer=${otherId}`), 403, 'VIEWER_BOUND');
    });
  });

  it('the script and the model agree: each message has one marker and a stated set of witnesses', () => {
    expect(SCRIPT.every((m) => markersIn(m.marker).size === 1)).toBe(true);
    expect(witnessedBy('player:aria')).toEqual(new Set(['MKHALLPUBA', 'MKHALLPUBB', 'MKWHISPERARIA', 'MKVAULTPUBC', 'MKWHISPERVEX', 'MKVAULTPUBD']));
  });
});
