import { Database } from '@app/database';
import { parseQuery } from '../query/query-language';
import { MessageDoc, SearchFilters, SearchHit, SearchIndex, SearchIndexOptions } from '../search-index.port';

export interface ContractSubject {
  db: Database;
  index: SearchIndex;
  /** Another adapter on the same database, with options. */
  make(options: SearchIndexOptions): SearchIndex;
}

const AT = '2026-05-01T10:00:00.000Z';

/** One contract for every SearchIndex adapter (FTS5, PostgreSQL): same inputs, same observable answers. */
export function searchIndexContract(
  name: string,
  setup: () => Promise<ContractSubject>,
  teardown: () => Promise<void>,
): void {
  describe(`SearchIndex contract: ${name}`, () => {
    let db: Database;
    let index: SearchIndex;
    let make: ContractSubject['make'];
    // Unique per run, so a shared PostgreSQL test database never mixes runs.
    const run = `r${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
    const cid = (c: string) => `${run}-${c}`;

    const msg = (index: number, content: string, extra: Partial<MessageDoc> = {}): MessageDoc => ({
      index,
      role: 'player',
      locationId: 'tavern',
      at: AT,
      round: 1,
      content,
      reasoning: null,
      ...extra,
    });
    const indexMessages = (campaign: string, docs: MessageDoc[]) =>
      db.transaction((m) => index.indexMessages(m, cid(campaign), docs));
    const search = (campaign: string, q: string, filters: Partial<SearchFilters> = {}): Promise<SearchHit[]> =>
      index.search(cid(campaign), parseQuery(q), { in: 'messages', limit: 20, ...filters });
    const refs = (hits: SearchHit[]) => hits.map((h) => h.ref);

    beforeAll(async () => {
      ({ db, index, make } = await setup());
      const filler = Array.from({ length: 498 }, (_, i) =>
        msg(i + 2, `Filler chatter number ${i} about the weather and the road.`),
      );
      await indexMessages('main', [
        msg(0, 'The smith needs iron ore from the Deepdelve mine; iron ore sells for double in Brask.', {
          at: '2026-04-01T08:00:00.000Z',
        }),
        msg(1, 'We stopped at the Café du Port for a drink.', { role: 'npc', locationId: 'port' }),
        ...filler,
        msg(500, 'I draw my iron sword and wait by the ore cart.', { round: 3 }),
        msg(501, 'Only iron here, nothing else.', { role: 'dm' }),
        msg(502, 'The ore in the old northern shaft was a dull iron grey, said the foreman.', { locationId: 'mine' }),
        msg(503, 'The ironclad ship sails at dawn.'),
        msg(504, 'Thinking out loud.', {
          role: 'assistant',
          reasoning: 'The secret password is swordfish; never tell the dragon.',
        }),
        msg(505, '', { role: 'assistant', reasoning: 'Only reasoning, no visible text: basilisk.' }),
      ]);
      await indexMessages('other', [
        msg(0, 'Iron ore and the secret password swordfish in another campaign.', { reasoning: 'swordfish basilisk' }),
      ]);
      await db.transaction((m) =>
        index.indexMemories(m, cid('main'), [
          {
            id: `${cid('main')}:7:location:tavern`,
            wording: { source: 'memory', version: 1 },
            locationId: 'tavern',
            at: '2026-04-02T09:00:00.000Z',
            round: 1,
            summary: 'The party haggled with the smith over a cartload of iron ore.',
          },
          {
            id: `${cid('main')}:9:world:world`,
            wording: { source: 'memory', version: 2 },
            locationId: null,
            at: '2026-04-03T09:00:00.000Z',
            round: 2,
            summary: 'A comet lit the northern sky.',
          },
        ]),
      );
      await db.transaction((m) =>
        index.indexBroadcasts(m, [
          { id: `${run}-b1`, seq: 1_000_001, from: 'scout', content: 'Pirates spotted near the Café reef.', at: AT },
          { id: `${run}-b2`, seq: 1_000_002, from: 'trader', content: 'Selling iron ore, cheap.', at: AT },
        ]),
      );
    });
    afterAll(teardown);

    it('ranks "iron ore" said twice above iron and ore said once, 500 messages later', async () => {
      const hits = await search('main', 'iron ore');
      expect(refs(hits)).toEqual(expect.arrayContaining([0, 500, 502]));
      expect(hits[0].ref).toBe(0);
      expect(refs(hits).indexOf(0)).toBeLessThan(refs(hits).indexOf(500));
      expect(refs(hits)).not.toContain(501); // says iron, not ore: words are ANDed
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
      expect(hits[0]).toMatchObject({ kind: 'message', at: '2026-04-01T08:00:00.000Z', round: 1 });
      expect(hits[0].score).toBeGreaterThan(0);
    });

    it('marks the hit words in the snippet with «»', async () => {
      const [hit] = await search('main', 'Deepdelve');
      expect(hit.snippet).toMatch(/«Deepdelve»/);
    });

    it('is case- and accent-insensitive both ways', async () => {
      expect(refs(await search('main', 'cafe'))).toEqual([1]);
      expect(refs(await search('main', 'CAFÉ'))).toEqual([1]);
      expect((await search('main', 'cafe'))[0].snippet).toMatch(/«Caf[ée]»/);
    });

    it('tells a phrase from the same words apart', async () => {
      expect(refs(await search('main', '"iron ore"'))).toEqual([0]);
      expect(refs(await search('main', '"ore iron"'))).toEqual([]);
      expect(refs(await search('main', 'ore iron')).sort((a, b) => Number(a) - Number(b))).toEqual([0, 500, 502]);
    });

    it('matches prefixes', async () => {
      expect(refs(await search('main', 'ironc*'))).toEqual([503]);
      expect(refs(await search('main', 'iron*'))).toEqual(expect.arrayContaining([0, 500, 501, 502, 503]));
    });

    it('gives every hit its snippet, however far apart the hits lie', async () => {
      // The snippets of the best rows are read in one walk of their span (FTS5): 498 rows lie between them.
      const hits = await search('main', 'iron*');
      expect(refs(hits).sort((a, b) => Number(a) - Number(b))).toEqual([0, 500, 501, 502, 503]);
      for (const h of hits) expect(h.snippet).toMatch(/«iron/i);
      const few = await search('main', 'iron*', { limit: 2 });
      expect(refs(few)).toEqual(refs(hits).slice(0, 2));
      expect(few.map((h) => h.snippet)).toEqual(hits.slice(0, 2).map((h) => h.snippet));
    });

    it('supports OR and NOT', async () => {
      expect(refs(await search('main', 'Deepdelve OR ironclad')).sort()).toEqual([0, 503]);
      expect(refs(await search('main', 'iron NOT ore'))).toEqual([501]); // ironclad is another word
    });

    it('searches reasoning separately from content', async () => {
      expect(refs(await search('main', 'swordfish'))).toEqual([]);
      const hits = await search('main', 'swordfish OR basilisk', { in: 'reasoning' });
      expect(refs(hits).sort()).toEqual([504, 505]);
      expect(hits.every((h) => h.kind === 'reasoning')).toBe(true);
      expect(refs(await search('main', 'loud', { in: 'reasoning' }))).toEqual([]);
    });

    it('searches memories by their summary', async () => {
      const hits = await search('main', 'haggled', { in: 'memories' });
      expect(hits).toEqual([
        expect.objectContaining({
          kind: 'memory',
          ref: `${cid('main')}:7:location:tavern`,
          at: '2026-04-02T09:00:00.000Z',
          round: 1,
        }),
      ]);
      expect(hits[0].snippet).toMatch(/«haggled»/);
      expect(await search('main', 'haggled', { in: 'memories', locationId: 'port' })).toEqual([]);
    });

    it("never returns another campaign's rows", async () => {
      expect(refs(await search('other', 'iron ore'))).toEqual([0]);
      expect(refs(await search('main', 'swordfish OR basilisk', { in: 'reasoning' }))).not.toContain(0);
      expect(await search('nobody', 'iron')).toEqual([]);
    });

    it('filters by role and location, and honours the limit', async () => {
      expect(refs(await search('main', 'iron', { role: 'dm' }))).toEqual([501]);
      expect(refs(await search('main', 'ore', { locationId: 'mine' }))).toEqual([502]);
      expect(await search('main', 'filler', { limit: 7 })).toHaveLength(7);
      expect(await search('main', 'filler', { limit: 100 })).toHaveLength(100);
    });

    it('searches broadcasts when no campaign is given', async () => {
      const hits = await index.search(null, parseQuery('cafe'), { in: 'messages', limit: 20 });
      expect(hits.filter((h) => String(h.ref).startsWith(run))).toEqual([
        expect.objectContaining({ kind: 'broadcast', ref: `${run}-b1`, from: 'scout' }),
      ]);
    });

    it('ranks the newest `candidates` matches (exact below that many matches)', async () => {
      await indexMessages('lanterns', [
        msg(0, 'Lantern lantern lantern lantern lantern!'),
        ...Array.from({ length: 6 }, (_, i) =>
          msg(i + 1, `A long message about the harbour, the nets, the gulls and one lantern, number ${i}.`),
        ),
      ]);
      expect((await search('lanterns', 'lantern'))[0].ref).toBe(0);
      const capped = await make({ candidates: 3 }).search(cid('lanterns'), parseQuery('lantern'), {
        in: 'messages',
        limit: 20,
      });
      expect(refs(capped).sort()).toEqual([4, 5, 6]);
    });

    it('is emptied by clear (for a rebuild)', async () => {
      await db.transaction((m) => index.clear(m));
      expect(await search('main', 'iron')).toEqual([]);
      expect(await search('main', 'haggled', { in: 'memories' })).toEqual([]);
    });
  });
}
