import { expectRejected } from '../../support/rejection';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(120_000);

const JSON_HEADERS = { 'content-type': 'application/json' };
const keyed = (n: number, prefix = 'k') =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, i]));

/**
 * Issue 29 / DESIGN §13 "Bodies are refused while they are read": deep or key-heavy JSON is refused by a linear scan
 * before the full parse, a problem+json 4xx with a code, appending nothing (SQLite; PostgreSQL under with-postgres.sh).
 */
describe('JSON refused before it is parsed', () => {
  let t: TestApp;
  const cid = 'prescan';
  beforeAll(async () => {
    t = await startTestApp({ env: { MAX_JSON_KEYS: '2000' } });
    await scenario(t, cid).create();
  });
  afterAll(async () => t.close());

  it('refuses a 1 MB body nested a million deep with 400 naming the field, fast', async () => {
    const body = `{"messages":${'['.repeat(1_000_000 - 20)}`;
    const started = performance.now();
    const res = await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () =>
      t.http('POST', `/v1/campaigns/${cid}/messages`, body, JSON_HEADERS),
    );
    expect(res.body.errors).toEqual([{ path: 'messages', message: 'must nest at most 64 levels deep' }]);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('refuses more than MAX_JSON_KEYS keys with 413 JSON_TOO_MANY_KEYS, on every route', async () => {
    const snapshot = `/v1/campaigns/${cid}/accounts/acc/snapshots/get_map`;
    await expectRejected(t, cid, 413, 'JSON_TOO_MANY_KEYS', () =>
      t.http('PUT', snapshot, { content: { sectors: keyed(2_000) }, merge: true }),
    );
    await expectRejected(t, cid, 413, 'JSON_TOO_MANY_KEYS', () =>
      t.http('POST', `/v1/campaigns/${cid}/messages`, {
        messages: [{ role: 'dm', content: 'hi', ...keyed(2_001, 'x') }],
      }),
    );
    expect((await t.http('GET', snapshot)).status).toBe(404);
    // At the limit (the body's own fields aside), the body reaches the route.
    expect((await t.http('PUT', snapshot, { content: keyed(2_000), tick: 1 })).status).toBe(200);
  });

  it('refuses a 20,000-sector merge (40,000 keys) without parsing it', async () => {
    const heavy = `{"content":{${Array.from({ length: 20_000 }, (_, i) => `"s${i}":{"hp":${i}}`).join(',')}},"merge":true}`;
    const started = performance.now();
    await expectRejected(t, cid, 413, 'JSON_TOO_MANY_KEYS', () =>
      t.http('PUT', `/v1/campaigns/${cid}/accounts/acc/snapshots/get_big`, heavy, JSON_HEADERS),
    );
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
