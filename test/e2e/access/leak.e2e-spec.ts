import {
  ALL_MESSAGES,
  BIBLE_DM,
  BIBLE_PUBLIC,
  buildLeakCampaign,
  contentOf,
  DM_ONLY_MESSAGES,
  EchoSummarizer,
  FACT,
  markersIn,
  NAME_OF,
  SCRIPT,
  sorted,
  union,
  usesWord,
  Viewer,
  visibleItems,
  witnessedBy,
} from '../../support/leak-scenario';
import { raw, spellings } from '../../support/path-spellings';
import { expectProblem } from '../../support/rejection';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(120_000);

const FULL = 'full-token-0123456789abcdef';
const ARIA = 'aria-token-0123456789abcdef';
const MIRA = 'mira-token-0123456789abcdef';
const VEX = 'vex-token-0123456789abcdef';
/** A full key of the bound keys' scope: broadcasts are shared by keys of one scope (DESIGN §8). */
const SCOPED_GM = 'scoped-gm-token-0123456789abcdef';
const BOUND: Record<Viewer, string> = { 'player:aria': ARIA, 'npc:mira': MIRA, 'npc:vex': VEX };
const cid = 'leak-a';
const ALL_QUERY = encodeURIComponent([...ALL_MESSAGES].join(' '));
/** Search ANDs its words: any message's marker. */
const ANY_MARKER = encodeURIComponent([...ALL_MESSAGES].join(' OR '));

/**
 * Issue 18's leak suite: for every read route, with a full key, a viewer-bound key and a viewer named by a full key,
 * across public, private and dm-only messages, the bible's dm-only part, glossary, memories, Previously and recall,
 * the markers each caller sees equal what DESIGN §8 allows, computed here from the script (test/support/leak-scenario).
 * Contexts without a viewer (the public view) are in test/e2e/access/leak-public-view.e2e-spec.ts.
 */
describe('leak suite: who may read what', () => {
  let t: TestApp;
  const get = async (token: string, path: string) =>
    t.http('GET', `/v1/campaigns/${cid}${path}`, undefined, { authorization: `Bearer ${token}` });
  const seen = async (token: string, path: string) => {
    const res = await get(token, path);
    if (res.status !== 200) throw new Error(`GET ${path} → ${res.status} ${res.text.slice(0, 300)}`);
    return markersIn(res.text);
  };
  /**
   * The admin's own view of the memories and the glossary: each item's text, for the per-item rule (every input
   * witnessed).
   */
  let memories: string[] = [];
  let memoryItems: { id: string; scope: string; subjectId: string; markers: Set<string> }[] = [];
  let glossary: { term: string; text: string }[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      summarizer: new EchoSummarizer(),
      env: {
        LOREKEEPER_API_KEYS:
          `${FULL}, ${SCOPED_GM}=leak-*, ` +
          `${ARIA}=leak-*@player:aria, ${MIRA}=leak-*@npc:mira, ${VEX}=leak-*@npc:vex`,
        HOT_ROUNDS: '1',
        SUMMARY_INTERVAL_ROUNDS: '1',
      },
    });
    await buildLeakCampaign(t, cid, { perRoleMemory: true, headers: { authorization: `Bearer ${FULL}` } });
    const memoryList = (await get(FULL, '/memories?limit=1000')).body.items as {
      id: string;
      scope: string;
      subjectId: string;
      summary: string;
    }[];
    memories = memoryList.map((m) => m.summary);
    memoryItems = memoryList.map((m) => ({
      id: m.id,
      scope: m.scope,
      subjectId: m.subjectId,
      markers: markersIn(m.summary),
    }));
    const terms = (await get(FULL, '/glossary')).body.items as { term: string; definition: string }[];
    glossary = terms.map((g) => ({ term: g.term, text: `${g.term} ${g.definition}` }));
  });
  afterAll(async () => t.close());

  it('builds the campaign it claims: every message, memories, a glossary and Previously exist', async () => {
    expect(sorted(await seen(FULL, '/messages'))).toEqual(sorted(ALL_MESSAGES));
    expect(memories.length).toBeGreaterThan(0);
    // Every kind of memory: the hall's (left at the end of round 1), Mira's (present there) and the world's
    // (objective).
    expect(sorted(memoryItems.map((m) => `${m.scope}:${m.subjectId}`))).toEqual([
      'location:hall',
      'npc:mira',
      'world:world',
    ]);
    expect(glossary.length).toBeGreaterThan(0);
    // A term used by more than one message (coined in a dm-only note, used again in public).
    expect(glossary.some((g) => SCRIPT.filter((m) => usesWord(contentOf(m), g.term)).length > 1)).toBe(true);
    const dm = await get(FULL, '/context?agent=dm&budget=200000&limit=100&format=json');
    expect(dm.body.sections.map((s: { key: string }) => s.key)).toEqual(
      expect.arrayContaining(['bible', 'glossary', 'previously', 'recent']),
    );
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
      expect(
        sorted(await seen(FULL, `/context?agent=dm&budget=200000&limit=100&format=text&query=${ALL_QUERY}`)),
      ).toEqual(sorted(expected));
    });
  });

  it('memories are built from what their subject witnessed: public messages for places and the world, never a dm-only one', () => {
    const publicAt = (location?: string) =>
      SCRIPT.filter((m) => m.visibility === 'public' && m.round === 1 && (!location || m.locationId === location));
    for (const memory of memoryItems) {
      expect([memory.scope, sorted([...memory.markers].filter((m) => DM_ONLY_MESSAGES.has(m)))]).toEqual([
        memory.scope,
        [],
      ]);
    }
    const of = (scope: string) => memoryItems.find((m) => m.scope === scope)!.markers;
    // The hall's memory: the public messages of its selection (round 1 at the hall), the whispers and dm notes left
    // out.
    expect(sorted(of('location'))).toEqual(sorted(publicAt('hall').map((m) => m.marker)));
    // The world's memory (the first, so everything before it): every public message.
    expect(sorted(of('world'))).toEqual(sorted(SCRIPT.filter((m) => m.visibility === 'public').map((m) => m.marker)));
    // Mira's: only what she witnessed at the hall (the whisper to her, the one she spoke), no dm-only line, not even
    // her own.
    const mira = of('npc');
    const miraMay = SCRIPT.filter(
      (m) => m.locationId === 'hall' && m.visibility !== 'dm' && m.witnesses.includes('npc:mira'),
    ).map((m) => m.marker);
    expect(sorted([...mira].filter((m) => !miraMay.includes(m)))).toEqual([]);
    expect(mira).toContain('MKHALLPUBB'); // she speaks it: she is mentioned
  });

  /**
   * DESIGN §8: a glossary term is known to whoever witnessed any message that uses it (whole word, case-insensitive).
   */
  const termsKnownTo = (viewer: Viewer) =>
    glossary
      .filter((g) => SCRIPT.some((m) => m.witnesses.includes(viewer) && usesWord(contentOf(m), g.term)))
      .map((g) => g.term);

  /** What DESIGN lets `viewer` see through each route, computed from the script and the admin's item lists. */
  const allowed = (viewer: Viewer) => {
    const witnessed = witnessedBy(viewer);
    return { witnessed, memories: visibleItems(memories, witnessed), terms: termsKnownTo(viewer) };
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

    it('glossary: exactly the terms used in witnessed messages, defined from witnessed text only', async () => {
      const res = await get(token(), '/glossary');
      expect(res.status).toBe(200);
      const entries = res.body.items as { term: string; definition: string }[];
      expect(sorted(entries.map((g) => g.term))).toEqual(sorted(allowed(viewer).terms));
      const witnessed = allowed(viewer).witnessed;
      for (const g of entries) {
        const markers = markersIn(`${g.term} ${g.definition}`);
        expect([g.term, markers.size > 0]).toEqual([g.term, true]);
        expect([g.term, sorted([...markers].filter((m) => !witnessed.has(m)))]).toEqual([g.term, []]);
      }
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
        expect([marker, (await get(token(), `/search?q=${marker}`)).body.items.length > 0]).toEqual([
          marker,
          a.witnessed.has(marker),
        ]);
        expect([marker, (await get(token(), `/search?q=${marker}&in=memories`)).body.items.length > 0]).toEqual([
          marker,
          a.memories.has(marker),
        ]);
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
      expect(
        sorted(
          await seen(
            FULL,
            `/context?agent=${kind}&viewer=${id}&budget=200000&limit=100&format=text&query=${ALL_QUERY}`,
          ),
        ),
      ).toEqual(sorted(got));
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

    /** Issue 28: the same reads spelled as an attacker would (`%65vents`, `//`, `/./`, `;x`) decide the same. */
    it('every spelling of a refused read is refused, of an allowed one reads the same markers', async () => {
      const memoryId = memoryItems.find((m) => m.scope === 'world')!.id;
      const params = { cid, memoryId };
      const wrong: string[] = [];
      for (const pattern of ['events', 'stream', 'timeline', 'usage', 'memories/:memoryId/usage']) {
        for (const [, path] of spellings(`/v1/campaigns/:cid/${pattern}`, params)) {
          const res = await raw(t.url, 'GET', path, token());
          if (res.status !== 403 || !res.body.includes('VIEWER_BOUND')) wrong.push(`${path}: ${res.status}`);
        }
      }
      for (const [, path] of spellings('/metrics')) {
        if ((await raw(t.url, 'GET', path, token())).status !== 403) wrong.push(`${path} answered`);
      }
      for (const pattern of [
        'messages',
        'memories',
        'glossary',
        'bible',
        'search',
        'context',
        'memories/:memoryId/history',
      ]) {
        const query =
          pattern === 'search' ? `?q=${ANY_MARKER}` : pattern === 'context' ? '?budget=200000&format=text' : '';
        const [[, plainPath], ...others] = spellings(`/v1/campaigns/:cid/${pattern}`, params);
        const plain = await raw(t.url, 'GET', plainPath + query, token());
        for (const [, path] of others) {
          const res = await raw(t.url, 'GET', path + query, token());
          if (
            res.status !== plain.status ||
            sorted(markersIn(res.body)).join() !== sorted(markersIn(plain.body)).join()
          )
            wrong.push(`${path}: ${res.status}, other markers than ${plainPath}`);
        }
      }
      expect(wrong).toEqual([]);
    });

    /** DESIGN §8: no count, index or position of a message it did not witness. */
    it('counts and positions: witnessed messageCount, contiguous seqs, no campaign index anywhere', async () => {
      const n = allowed(viewer).witnessed.size;
      const campaign = (await get(token(), '')).body;
      expect(campaign.messageCount).toBe(n);
      expect(campaign.cursors).toBeUndefined();
      const messages = (await get(token(), '/messages')).body.items as { seq: number; index?: number }[];
      expect(messages.map((m) => m.seq)).toEqual([...Array(n).keys()]);
      expect(messages.every((m) => m.index === undefined)).toBe(true);
      const page = (await get(token(), '/messages?after=0&limit=2')).body.items as { seq: number }[];
      expect(page.map((m) => m.seq)).toEqual([1, 2].filter((s) => s < n));
      const hits = (await get(token(), `/search?q=${ANY_MARKER}&limit=100`)).body.items as { ref: number }[];
      expect(sorted(hits.map((h) => String(h.ref)))).toEqual(sorted([...Array(n).keys()].map(String)));
      const json = (await get(token(), `/context?budget=200000&format=json&query=${ALL_QUERY}`)).body;
      const refs = json.sections
        .filter((s: { key: string }) => s.key === 'recent' || s.key === 'recall')
        .flatMap((s: { entries: { ref: string }[] }) => s.entries.map((e) => e.ref))
        .filter((ref: string) => /^\d+$/.test(ref));
      expect(refs.length).toBeGreaterThan(0);
      expect(refs.every((ref: string) => Number(ref) < n)).toBe(true);
      const text = (await get(token(), `/context?budget=200000&format=text&query=${ALL_QUERY}`)).text;
      expect(text).not.toMatch(/\[\d+\]/);
      for (const m of (await get(token(), '/memories?limit=1000')).body.items) {
        expect(m.throughMessageIndex).toBeLessThan(n);
        const history = (await get(token(), `/memories/${m.id}/history`)).body.items;
        expect(history.every((h: { inputIndexes?: number[] }) => h.inputIndexes === undefined)).toBe(true);
      }
      for (const g of (await get(token(), '/glossary')).body.items) {
        expect(g.coinedMessageIndex === null || g.coinedMessageIndex < n).toBe(true);
      }
    });

    it('broadcasts: a gm one never, listed or searched; a public one of its scope, yes', async () => {
      const auth = { authorization: `Bearer ${SCOPED_GM}` };
      const post = (content: string, visibility: string) =>
        t.http('POST', '/v1/broadcasts', { content, from: 'gm', visibility }, auth);
      expect((await post('MKBROADCASTGM the ambush waits', 'gm')).status).toBe(201);
      expect((await post('MKBROADCASTPUB market day', 'public')).status).toBe(201);
      for (const query of ['', '?q=MKBROADCASTGM%20OR%20MKBROADCASTPUB']) {
        const res = await t.http('GET', `/v1/broadcasts${query}`, undefined, { authorization: `Bearer ${token()}` });
        expect(sorted(markersIn(res.text))).toEqual(['MKBROADCASTPUB']);
      }
    });

    it('another viewer’s context: 403 VIEWER_BOUND', async () => {
      const other = (Object.keys(BOUND) as Viewer[]).find((v) => v !== viewer)!;
      const [otherKind, otherId] = other.split(':');
      expectProblem(await get(token(), `/context?agent=${otherKind}&viewer=${otherId}`), 403, 'VIEWER_BOUND');
    });
  });

  it('the script and the model agree: each message has one marker and a stated set of witnesses', () => {
    expect(SCRIPT.every((m) => markersIn(m.marker).size === 1)).toBe(true);
    expect(SCRIPT.every((m) => markersIn(contentOf(m)).size === 1)).toBe(true);
    expect(witnessedBy('player:aria')).toEqual(
      new Set(['MKHALLPUBA', 'MKHALLPUBB', 'MKWHISPERARIA', 'MKVAULTPUBC', 'MKWHISPERVEX', 'MKVAULTPUBD']),
    );
    expect(witnessedBy('npc:mira')).toEqual(
      new Set(['MKHALLPUBA', 'MKHALLPUBB', 'MKWHISPERARIA', 'MKWHISPERMIRA', 'MKDMBYMIRA']),
    );
    expect(witnessedBy('npc:vex')).toEqual(new Set(['MKVAULTPUBX', 'MKVAULTPUBC', 'MKWHISPERVEX', 'MKVAULTPUBD']));
    // The speaker rule: a message whose speaker is a viewer's id or name (whole string, any case) is witnessed by it.
    for (const m of SCRIPT) {
      for (const [viewer, name] of Object.entries(NAME_OF) as [Viewer, string][]) {
        const said = m.speaker?.toLowerCase();
        if (said === name.toLowerCase() || said === viewer.split(':')[1])
          expect([m.marker, m.witnesses]).toEqual([m.marker, expect.arrayContaining([viewer])]);
      }
    }
    // "Obsidian Gate" is coined in a dm-only note: Aria and Vex know it from its public use, Mira never heard it.
    expect(termsKnownTo('player:aria')).toContain('Obsidian Gate');
    expect(termsKnownTo('npc:vex')).toContain('Obsidian Gate');
    expect(termsKnownTo('npc:mira')).not.toContain('Obsidian Gate');
  });
});
