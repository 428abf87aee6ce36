import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(120_000);

const QUERY = 'lamp%20ward%20bells%20Oswin';

/**
 * DESIGN §8 "recall depends on the campaign alone": ranks, scores and the recalled entries come from the campaign's own
 * content at the read's version — never from another campaign's rows (SQLite FTS5's bm25 counts the whole table).
 */
describe('recall depends on the campaign alone (DESIGN §8 amended, §10 branch equivalence)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const seed = async (id: string, words: string[]) => {
    const c = scenario(t, id);
    await c.create(`Campaign ${id}`);
    await c.location('hall', 'The Lantern Hall');
    await c.location('tower', 'The Bell Tower');
    await c.npc('oswin', 'Oswin', 'hall');
    await t.http('PUT', `/v1/campaigns/${id}/players/lyra`, { name: 'Lyra' });
    await c.move('hall');
    for (let i = 0; i < words.length; i++)
      await c.say({ role: i % 2 ? 'player' : 'dm', speaker: i % 2 ? 'Lyra' : null, content: words[i] });
    return c;
  };

  /** Every read whose bytes must not move: contexts (dm, player; text and JSON) and searches, with ranks and scores. */
  const reads = async (id: string, asOf?: number) => {
    const v = asOf ? `&asOf=${asOf}` : '';
    const out: string[] = [];
    for (const q of [`?agent=dm&query=${QUERY}`, `?agent=player&viewer=lyra&query=${QUERY}`]) {
      for (const format of ['', '&format=text']) {
        const res = await t.http('GET', `/v1/campaigns/${id}/context${q}&budget=600${format}${v}`);
        expect(res.status).toBe(200);
        out.push(format ? res.text : JSON.stringify(res.body));
      }
    }
    for (const within of ['messages', 'memories']) {
      const res = await t.http('GET', `/v1/campaigns/${id}/search?q=lamp%20OR%20ward%20OR%20bells&in=${within}${v}`);
      expect(res.status).toBe(200);
      out.push(JSON.stringify(res.body.items));
    }
    // Campaign-specific fields aside (the id in memory ids, the version a fork adds), nothing may differ.
    return out.map((s) => s.split(id).join('<cid>'));
  };

  const LINES = [
    'The lamp in the Lantern Hall has gone dark.',
    'Lyra asks Oswin who broke the ward.',
    'Oswin says the bells rang when the ward broke.',
    'Lyra trims the wick of the lamp.',
    'The bells of the Bell Tower answer from afar.',
    'Lyra wonders whether the lamp and the ward are one thing.',
  ];

  it('A’s contexts and searches are byte-identical before and after campaign B is created, written to and deleted', async () => {
    const a = await seed('tenant-a', LINES);
    await a.move('tower');
    await a.say({ role: 'dm', content: 'Wind moans around the Bell Tower.' });
    await a.settled();
    const before = await reads('tenant-a');
    expect(before[0]).toContain('"key":"recall"');

    // B says A's words many times over (FTS5's table-wide statistics would lower their weight in A).
    const b = await seed('tenant-b', [
      ...Array.from({ length: 12 }, (_, i) => `The lamp and the ward and the bells, again and again ${i}.`),
      'Oswin Oswin Oswin lamp lamp lamp.',
    ]);
    await b.move('tower');
    await b.settled();
    expect(await reads('tenant-a')).toEqual(before);
    await b.say({ role: 'dm', content: 'More lamps, more wards, more bells: lamp ward bells.' });
    await b.settled();
    expect(await reads('tenant-a')).toEqual(before);
    expect((await t.http('DELETE', '/v1/campaigns/tenant-b')).status).toBe(204);
    expect(await reads('tenant-a')).toEqual(before);
  });

  it('a fork, its parent asOf V and the parent before the fork agree, ranks and scores included', async () => {
    const p = await seed('tenant-parent', LINES);
    await p.move('tower');
    await p.settled();
    const v = (await p.campaign()).version;
    const atV = await reads('tenant-parent');
    const fork = await t.http('POST', '/v1/campaigns/tenant-parent/fork', { id: 'tenant-fork', atVersion: v });
    expect(fork.status).toBe(201);
    // The parent goes on: more of the same words, so its own statistics change after V.
    await p.move('hall');
    await p.say({ role: 'dm', content: 'The lamp flickers back to life; the ward hums; the bells fall silent.' });
    await p.settled();
    await scenario(t, 'tenant-fork').settled();
    // A fork keeps its parent's memory ids (§10): both names read as the campaign's.
    const strip = (xs: string[]) =>
      xs.map((s) =>
        s
          .split('tenant-parent')
          .join('<cid>')
          .replace(/"(version|processedVersion|timeline)":\d+,?/g, ''),
      );
    expect(strip(await reads('tenant-fork'))).toEqual(strip(atV));
    expect(strip(await reads('tenant-parent', v))).toEqual(strip(atV));
    // The search hits carry their scores: equal as numbers, not only as ranks.
    const hits = JSON.parse(atV[atV.length - 2]);
    expect(hits.length).toBeGreaterThan(1);
    expect(hits[0].score).toBeGreaterThan(0);
  });
});
