import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

/** DESIGN §14: GET …/context answers text/plain for Accept: text/plain (format=text an alias), JSON otherwise. */
describe('content negotiation on the context', () => {
  let t: TestApp;
  const cid = 'negotiated';
  const get = (query: string, accept?: string) =>
    t.http('GET', `/v1/campaigns/${cid}/context${query}`, undefined, accept ? { accept } : {});
  beforeAll(async () => {
    t = await startTestApp();
    const s = scenario(t, cid);
    await s.create('Negotiated');
    await s.location('tavern', 'The Rusty Anchor');
    await s.location('docks', 'Saltmere Docks');
    await s.move('tavern');
    await s.say({ role: 'npc', speaker: 'Mira', content: 'The crates went to the lighthouse.' });
    await s.move('docks');
    await s.settled();
  });
  afterAll(async () => t.close());

  it('Accept: text/plain answers the same text as format=text, and says the answer varies on Accept', async () => {
    const byAccept = await get('?agent=dm', 'text/plain');
    const byAlias = await get('?agent=dm&format=text');
    expect(byAccept.status).toBe(200);
    expect(byAccept.headers.get('content-type')).toMatch(/^text\/plain; charset=utf-8/);
    expect(byAccept.headers.get('vary')).toMatch(/accept/i);
    expect(byAccept.text).toBe(byAlias.text);
    expect(byAccept.text).toMatch(/^## /m);
  });

  it.each([undefined, '*/*', 'application/json', 'application/json, text/plain, */*', 'text/html'])(
    'Accept %s answers JSON',
    async (accept) => {
      const res = await get('?agent=dm', accept);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Array.isArray(res.body.sections)).toBe(true);
    },
  );

  it('format pins the answer whatever Accept says; a bad format is a 400 problem', async () => {
    expect((await get('?format=json', 'text/plain')).headers.get('content-type')).toMatch(/^application\/json/);
    expect((await get('?format=text', 'application/json')).headers.get('content-type')).toMatch(/^text\/plain/);
    const bad = await get('?format=xml', 'text/plain');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('the document declares both media types on one operation and a relative server URL', async () => {
    const doc = (await t.http('GET', '/docs/openapi.json')).body;
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    const content = doc.paths['/v1/campaigns/{cid}/context'].get.responses['200'].content;
    expect(Object.keys(content).sort()).toEqual(['application/json', 'text/plain']);
    expect(content['text/plain'].schema).toEqual({ type: 'string' });
  });
});
