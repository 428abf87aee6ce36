import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(120_000);

const LETTERS = 'bcdfghjklmnpqrstvwz';
/** A distinct two-word name per `n` ("Kabeth Morabin"): a capitalised run of two words is a coined term (§8). */
const termOf = (n: number) => {
  const a = LETTERS[n % 19];
  const b = LETTERS[Math.floor(n / 19) % 19];
  const c = LETTERS[Math.floor(n / 361) % 19];
  return `K${a}o${b}e${c}ath M${c}u${b}i${a}orn`;
};
/**
 * Messages of an npc naming `count` new terms from `from` on, ten a message (the per-message cap). Each term's
 * offline definition is its clause ("Mira saw …"), not a whole sentence the context prints (§8: no duplicate).
 */
const coining = (from: number, count: number) =>
  Array.from({ length: Math.ceil(count / 10) }, (_, m) => ({
    role: 'npc',
    speaker: 'Mira',
    content: Array.from(
      { length: Math.min(10, count - m * 10) },
      (_, k) => `Mira saw ${termOf(from + m * 10 + k)}, and the harbour bell rang.`,
    ).join(' '),
  }));

/** Issue 29 / DESIGN §13 "The glossary is bounded", over HTTP (SQLite, and PostgreSQL under with-postgres.sh). */
describe('glossary caps', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { MAX_GLOSSARY_TERMS: '45' } });
  });
  afterAll(async () => t.close());

  const terms = async (cid: string): Promise<string[]> =>
    (await t.http('GET', `/v1/campaigns/${cid}/glossary`)).body.items.map((i: { term: string }) => i.term);

  it('coins at most MAX_NEW_TERMS_PER_REQUEST (20) per request; a later request coins what it uses', async () => {
    const s = scenario(t, 'gloss-request');
    await s.create();
    await s.say(...coining(0, 60));
    await s.settled();
    const first = await terms('gloss-request');
    expect(first).toHaveLength(20);
    expect(first).toEqual(expect.arrayContaining([termOf(0), termOf(9), termOf(10), termOf(19)]));
    await s.say(...coining(40, 10));
    await s.settled();
    expect(await terms('gloss-request')).toHaveLength(30);
  });

  it('holds at most MAX_GLOSSARY_TERMS coined terms per campaign; a GM term is still added past it', async () => {
    const s = scenario(t, 'gloss-campaign');
    await s.create();
    for (const from of [0, 20, 40]) await s.say(...coining(from, 20));
    await s.settled();
    expect(await terms('gloss-campaign')).toHaveLength(45);
    const gm = await t.http('PUT', '/v1/campaigns/gloss-campaign/glossary/Salt%20Vault', {
      definition: 'The harbour treasury.',
    });
    expect(gm.status).toBe(200);
    expect(await terms('gloss-campaign')).toHaveLength(46);
  });

  it('fits the Glossary in a small budget above its 20 % room, dropping the least recently used terms (reason budget)', async () => {
    const s = scenario(t, 'gloss-budget');
    await s.create();
    await s.say(...coining(0, 20));
    await s.say(...coining(20, 20));
    await s.settled();
    // The oldest term is used again last: it is the most recently used one now.
    await s.say({ role: 'player', speaker: 'Aria', content: `Where is ${termOf(0)}?` });
    await s.settled();
    const res = await s.context('?agent=dm&budget=500&format=json');
    expect(res.status).toBe(200);
    const glossary = res.body.sections.find((x: { key: string }) => x.key === 'glossary');
    const kept: string[] = glossary.entries.map((e: { ref: string }) => e.ref);
    const dropped = res.body.dropped.filter((d: { section: string }) => d.section === 'glossary');
    // Dropped only past its room (100 of 500): it stops at the first fit, keeping at least its room less one term.
    expect(glossary.tokens).toBeGreaterThan(80);
    expect(glossary.tokens).toBeLessThan(200);
    expect(dropped.length).toBeGreaterThan(20);
    expect(dropped.every((d: { reason: string }) => d.reason === 'budget')).toBe(true);
    expect(kept).toContain(termOf(0));
    expect(kept).not.toContain(termOf(1));
    expect(res.body.tokens.used).toBeLessThanOrEqual(500);
  });
});
