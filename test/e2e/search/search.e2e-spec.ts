import fc from 'fast-check';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

// The e2e project's testTimeout is not applied under jest 30 projects; boots and the fuzz run need more than 5 s.
jest.setTimeout(60_000);

const filler = (i: number) => ({
  role: 'player',
  speaker: 'Aria',
  content: `Filler line ${i}: we walk on through the rain and talk about nothing much.`,
});

describe('GET /v1/campaigns/:cid/search over HTTP (FTS5 on a SQLite file)', () => {
  let t: TestApp;
  const search = (cid: string, query: string) => t.http('GET', `/v1/campaigns/${cid}/search${query}`);
  const refs = (res: { body: { items: { ref: unknown }[] } }) => res.body.items.map((i) => i.ref);

  beforeAll(async () => {
    t = await startTestApp();
    const s = scenario(t, 'main');
    await s.create();
    await s.location('tavern', 'Rusty Anchor');
    await s.location('mine', 'Deepdelve Mine');
    await s.location('lighthouse', 'Brinemoor Lighthouse');
    await s.npc('borin', 'Borin', 'tavern');
    await s.move('tavern');
    // index 0: the old message the agent must still find 500 messages later
    await s.say({
      role: 'npc',
      speaker: 'Borin',
      content: 'Bring me iron ore from the mine; iron ore sells for double in Brask.',
    });
    await s.say({ role: 'narrator', content: 'Rain drums on the roof of the Café Lumière.' });
    for (let from = 2; from < 500; from += 250)
      await s.say(...Array.from({ length: Math.min(250, 500 - from) }, (_, i) => filler(from + i)));
    await s.say(
      // 500
      { role: 'player', speaker: 'Aria', content: 'I grip my iron sword and watch the ore cart roll by the door.' },
      { role: 'dm', content: 'Only iron bars in this chest.' }, // 501
      // 502
      { role: 'player', speaker: 'Aria', content: 'We walk the iron ore road to the mine gate.', locationId: 'mine' },
      {
        role: 'assistant',
        content: 'Checking the ledger.',
        reasoning: 'The vault code is 4471; the smuggler Vessa must not learn it.',
      }, // 503
    );
    await scenario(t, 'other').create();
    await scenario(t, 'other').say({
      role: 'player',
      content: 'Iron ore, iron ore, Vessa and the vault code everywhere.',
      reasoning: 'Vessa vault code iron ore',
    });
  });
  afterAll(async () => t.close());

  it('finds the "iron ore" message from 500 messages ago, ranked above one that says iron once', async () => {
    const res = await search('main', '?q=iron%20ore');
    expect(res.status).toBe(200);
    const items = res.body.items;
    expect(items[0]).toMatchObject({ kind: 'message', ref: 0, round: 1 });
    expect(items[0].snippet).toContain('«iron» «ore»');
    expect(typeof items[0].at).toBe('string');
    expect(refs(res)).toEqual(expect.arrayContaining([0, 500, 502]));
    expect(refs(res).indexOf(0)).toBeLessThan(refs(res).indexOf(500));
    expect(refs(res)).not.toContain(501);
    const scores = items.map((i: { score: number }) => i.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('"Café" and "cafe" find each other', async () => {
    expect(refs(await search('main', '?q=cafe'))).toEqual([1]);
    expect(refs(await search('main', `?q=${encodeURIComponent('CAFÉ lumiere')}`))).toEqual([1]);
  });

  it('a phrase needs the words together and in order; words alone do not', async () => {
    expect(refs(await search('main', `?q=${encodeURIComponent('"iron ore"')}`)).sort()).toEqual([0, 502]);
    expect(refs(await search('main', `?q=${encodeURIComponent('"ore iron"')}`))).toEqual([]);
    expect(refs(await search('main', '?q=ore%20iron')).sort()).toEqual([0, 500, 502]);
  });

  it('matches a prefix', async () => {
    expect(refs(await search('main', '?q=Brin*'))).toEqual([0]);
    expect(refs(await search('main', '?q=Brin'))).toEqual([]);
  });

  it('in=reasoning searches only reasoning text, and messages never see it', async () => {
    expect(refs(await search('main', '?q=vault%20code'))).toEqual([]);
    const res = await search('main', '?q=vault%20code&in=reasoning');
    expect(res.body.items).toEqual([expect.objectContaining({ kind: 'reasoning', ref: 503 })]);
    expect(res.body.items[0].snippet).toContain('«vault» «code»');
    expect(refs(await search('main', '?q=ledger&in=reasoning'))).toEqual([]);
  });

  it("never returns another campaign's messages", async () => {
    expect(refs(await search('other', '?q=iron%20ore'))).toEqual([0]);
    expect(refs(await search('main', '?q=Vessa'))).toEqual([]);
    expect(refs(await search('main', '?q=Vessa&in=reasoning'))).toEqual([503]);
  });

  it('filters by role and locationId, and limits', async () => {
    expect(refs(await search('main', '?q=iron&role=dm'))).toEqual([501]);
    expect(refs(await search('main', '?q=iron&role=npc'))).toEqual([0]);
    expect(refs(await search('main', '?q=iron&locationId=mine'))).toEqual([502]);
    expect((await search('main', '?q=filler')).body.items).toHaveLength(20);
    expect((await search('main', '?q=filler&limit=3')).body.items).toHaveLength(3);
    expect((await search('main', '?q=filler&limit=100')).body.items).toHaveLength(100);
  });

  it('a message in a batch refused by validation is not searchable', async () => {
    const before = (await t.http('GET', '/v1/campaigns/main')).body.version;
    const res = await t.http('POST', '/v1/campaigns/main/messages', {
      messages: [
        { role: 'player', content: 'The quartzite obelisk hums.' },
        { role: 'npc', content: 'The quartzite obelisk answers.', npcIds: ['nobody'] },
      ],
    });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NPC_NOT_FOUND');
    expect((await t.http('GET', '/v1/campaigns/main')).body.version).toBe(before);
    expect((await search('main', '?q=quartzite')).body.items).toEqual([]);
  });

  it('memories are searchable by their summary, with the location filter', async () => {
    const s = scenario(t, 'mem');
    await s.create();
    await s.location('lighthouse', 'Brinemoor Lighthouse');
    await s.location('docks', 'Docks');
    await s.move('lighthouse');
    await s.say({ role: 'player', speaker: 'Aria', content: 'I light the great lamp and 3 ships turn toward shore.' });
    await s.move('docks');
    await s.settled();
    const [memory] = (await s.memories('?scope=location')).items;
    expect(memory.summary).toContain('Brinemoor');
    const res = await search('mem', '?q=brinemoor&in=memories');
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([
      expect.objectContaining({ kind: 'memory', ref: memory.id, at: memory.createdAt, round: 1 }),
    ]);
    expect(res.body.items[0].snippet).toContain('«Brinemoor»');
    expect(refs(await search('mem', '?q=brinemoor'))).toEqual([]); // the messages never name it
    expect(refs(await search('mem', '?q=brinemoor&in=memories&locationId=lighthouse'))).toEqual([memory.id]);
    expect(refs(await search('mem', '?q=brinemoor&in=memories&locationId=docks'))).toEqual([]);
  });

  describe('bad input is a 400 with a code, never a 5xx', () => {
    it.each([
      ['missing q', ''],
      ['empty q', '?q='],
      ['blank q', '?q=%20%20'],
      ['q over 256 characters', `?q=${'a'.repeat(257)}`],
      ['an unclosed quote', `?q=${encodeURIComponent('"unclosed')}`],
      ['AND OR', `?q=${encodeURIComponent('iron AND OR ore')}`],
      ['operators only', `?q=${encodeURIComponent('AND OR')}`],
      ['a bare *', '?q=*'],
      ['NEAR(', `?q=${encodeURIComponent('NEAR(iron ore)')}`],
      ['parentheses', `?q=${encodeURIComponent('(iron OR ore) gold')}`],
      ['a trailing NOT', `?q=${encodeURIComponent('iron NOT')}`],
    ])('%s → 400 INVALID_QUERY', async (_label, query) => {
      const res = await search('main', query);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.body.code).toBe('INVALID_QUERY');
      expect(res.body.detail.length).toBeGreaterThan(0);
    });

    it.each([
      ['unknown in', '?q=iron&in=everything'],
      ['limit 0', '?q=iron&limit=0'],
      ['limit 101', '?q=iron&limit=101'],
      ['limit not a number', '?q=iron&limit=ten'],
      ['unknown role', '?q=iron&role=wizard'],
      ['role with in=memories', '?q=iron&in=memories&role=dm'],
      ['bad locationId', '?q=iron&locationId=%20bad'],
      ['unknown parameter', '?q=iron&sort=new'],
      ['q given twice', '?q=iron&q=ore'],
    ])('%s → 400 VALIDATION_FAILED', async (_label, query) => {
      const res = await search('main', query);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    });

    it('unknown campaign → 404, bad campaign id → 400', async () => {
      expect((await search('nobody', '?q=iron')).body.code).toBe('CAMPAIGN_NOT_FOUND');
      expect((await search('nobody', '?q=iron')).status).toBe(404);
      expect((await search('-bad', '?q=iron')).body.code).toBe('INVALID_ID');
    });

    it('random query strings give 200 or 400 INVALID_QUERY, never a 5xx (1,000 runs)', async () => {
      const version = (await t.http('GET', '/v1/campaigns/main')).body.version;
      const pieces = fc.constantFrom(
        '"',
        '*',
        '(',
        ')',
        'AND',
        'OR',
        'NOT',
        'NEAR',
        'NEAR(',
        ' ',
        'iron',
        'ore',
        'Café',
        ':',
        '^',
        '-',
        '+',
        '{',
        '}',
        "'",
        '\\',
        '/',
        '&',
        '|',
        '!',
        '<->',
        '\u0000',
        '\t',
        '🐉',
        'é',
        'e\u0301',
        '東京',
        'ـ',
        '%',
      );
      const query = fc.oneof(
        fc.array(pieces, { maxLength: 12 }).map((p) => p.join('')),
        fc.array(fc.oneof(pieces, fc.string({ maxLength: 6 })), { maxLength: 10 }).map((p) => p.join(' ')),
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.string({ maxLength: 300 }),
      );
      let ok = 0;
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(query, fc.constantFrom('messages', 'reasoning', 'memories'), async (q, scope) => {
          const res = await search('main', `?q=${encodeURIComponent(q)}&in=${scope}`);
          if (res.status === 200) ok++;
          // NUL and unpaired surrogates are refused before parsing, like in every other text input.
          else if (res.status === 400 && (res.body.code === 'INVALID_QUERY' || res.body.code === 'VALIDATION_FAILED'))
            refused++;
          else throw new Error(`q=${JSON.stringify(q)} → ${res.status} ${res.text}`);
        }),
        { numRuns: 1000 },
      );
      expect(ok).toBeGreaterThan(50);
      expect(refused).toBeGreaterThan(50);
      expect((await t.http('GET', '/v1/campaigns/main')).body.version).toBe(version);
    }, 120_000);
  });
});

describe('the search index survives a restart', () => {
  it('finds after a restart what it found before', async () => {
    let t = await startTestApp();
    const dbPath = t.dbPath;
    const s = scenario(t, 'durable');
    await s.create();
    await s.say({ role: 'player', content: 'The heliotrope key opens the crypt.' });
    expect((await t.http('GET', '/v1/campaigns/durable/search?q=heliotrope')).body.items).toHaveLength(1);
    await t.close();
    t = await startTestApp({ dbPath });
    const res = await t.http('GET', '/v1/campaigns/durable/search?q=heliotrope');
    expect(res.body.items).toEqual([expect.objectContaining({ kind: 'message', ref: 0 })]);
    await t.close();
  }, 60_000);
});
