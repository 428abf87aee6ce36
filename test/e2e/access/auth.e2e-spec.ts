import { startTestApp, TestApp } from '../../support/test-app';

const ADMIN = 'admin-token-0123456789abcdef';
const TENANT = 'tenant-token-0123456789abcdef';
const KEYS = `${ADMIN}, ${TENANT}=acme-*, ${TENANT}=shared.camp`;
const as = (token: string) => ({ authorization: `Bearer ${token}` });

jest.setTimeout(30_000);

describe('access control with LOREKEEPER_API_KEYS', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { LOREKEEPER_API_KEYS: KEYS } });
    expect((await t.http('POST', '/v1/campaigns', { id: 'acme-1', name: 'Acme' }, as(ADMIN))).status).toBe(201);
    expect((await t.http('POST', '/v1/campaigns', { id: 'other-1', name: 'Other' }, as(ADMIN))).status).toBe(201);
  });
  afterAll(async () => t.close());

  const expectProblem = (res: { status: number; headers: Headers; body: any }, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status, code });
  };

  it.each([
    ['no Authorization header', {}],
    ['an unknown token', as('wrong-token-0123456789abcdef')],
    ['a prefix of a valid token', as(ADMIN.slice(0, -1))],
    ['a valid token with a suffix', as(`${ADMIN}x`)],
    ['another scheme', { authorization: `Basic ${ADMIN}` }],
    ['an empty bearer', { authorization: 'Bearer ' }],
  ])('refuses a /v1 request with %s: 401 UNAUTHORIZED, nothing appended', async (_label, headers) => {
    const write = await t.http(
      'POST',
      '/v1/campaigns/acme-1/messages',
      { messages: [{ role: 'dm', content: 'sneaky' }] },
      headers as Record<string, string>,
    );
    expectProblem(write, 401, 'UNAUTHORIZED');
    expect(write.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expectProblem(
      await t.http('GET', '/v1/campaigns/acme-1', undefined, headers as Record<string, string>),
      401,
      'UNAUTHORIZED',
    );
    expectProblem(
      await t.http('GET', '/v1/no-such-route', undefined, headers as Record<string, string>),
      401,
      'UNAUTHORIZED',
    );
    expect((await t.http('GET', '/v1/campaigns/acme-1', undefined, as(ADMIN))).body.version).toBe(1);
  });

  it('rejects an unauthenticated body before parsing it (no 400/413 oracle)', async () => {
    expectProblem(
      await t.http('POST', '/v1/campaigns', '{not json', { 'content-type': 'application/json' }),
      401,
      'UNAUTHORIZED',
    );
    expectProblem(
      await t.http('POST', '/v1/campaigns', 'x'.repeat(2 * 1024 * 1024), { 'content-type': 'application/json' }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('keeps /health open', async () => {
    const res = await t.http('GET', '/health');
    expect(res.status).toBe(200);
  });

  it('lets an unscoped key reach every campaign and the scheme is case-insensitive', async () => {
    expect((await t.http('GET', '/v1/campaigns/other-1', undefined, { authorization: `bearer ${ADMIN}` })).status).toBe(
      200,
    );
    expect((await t.http('GET', '/v1/campaigns/acme-1', undefined, as(ADMIN))).status).toBe(200);
  });

  it('lets a scoped key reach the campaigns matching its globs', async () => {
    expect((await t.http('GET', '/v1/campaigns/acme-1', undefined, as(TENANT))).status).toBe(200);
    const put = await t.http('PUT', '/v1/campaigns/acme-1/locations/hall', { name: 'Hall' }, as(TENANT));
    expect(put.status).toBe(200);
    expect((await t.http('POST', '/v1/campaigns', { id: 'shared.camp', name: 'Shared' }, as(TENANT))).status).toBe(201);
    expect((await t.http('POST', '/v1/campaigns', { id: 'acme-2', name: 'Acme 2' }, as(TENANT))).status).toBe(201);
  });

  it('answers a campaign outside the scope exactly like a missing one (404), and changes nothing', async () => {
    const before = (await t.http('GET', '/v1/campaigns/other-1', undefined, as(ADMIN))).body.version;
    const existing = await t.http('GET', '/v1/campaigns/other-1', undefined, as(TENANT));
    const missing = await t.http('GET', '/v1/campaigns/acme-nope', undefined, as(TENANT));
    expectProblem(existing, 404, 'CAMPAIGN_NOT_FOUND');
    expectProblem(missing, 404, 'CAMPAIGN_NOT_FOUND');
    expect(existing.body.detail).toBe('campaign other-1 not found');
    expect(Object.keys(existing.body).sort()).toEqual(Object.keys(missing.body).sort());
    expectProblem(
      await t.http('POST', '/v1/campaigns/other-1/messages', { messages: [{ role: 'dm', content: 'x' }] }, as(TENANT)),
      404,
      'CAMPAIGN_NOT_FOUND',
    );
    expectProblem(
      await t.http('PUT', '/v1/campaigns/other-1/locations/x', { name: 'X' }, as(TENANT)),
      404,
      'CAMPAIGN_NOT_FOUND',
    );
    expectProblem(
      await t.http('GET', '/v1/campaigns/other-1/events', undefined, as(TENANT)),
      404,
      'CAMPAIGN_NOT_FOUND',
    );
    expectProblem(await t.http('GET', '/v1/campaigns/shared.camp2', undefined, as(TENANT)), 404, 'CAMPAIGN_NOT_FOUND');
    expect((await t.http('GET', '/v1/campaigns/other-1', undefined, as(ADMIN))).body.version).toBe(before);
  });

  it('refuses to create a campaign outside the scope or without an id (403), creating nothing', async () => {
    expectProblem(
      await t.http('POST', '/v1/campaigns', { id: 'evil-1', name: 'Evil' }, as(TENANT)),
      403,
      'CAMPAIGN_OUT_OF_SCOPE',
    );
    expectProblem(await t.http('POST', '/v1/campaigns', { name: 'No id' }, as(TENANT)), 403, 'CAMPAIGN_OUT_OF_SCOPE');
    expectProblem(await t.http('GET', '/v1/campaigns/evil-1', undefined, as(ADMIN)), 404, 'CAMPAIGN_NOT_FOUND');
    // A malformed body still gets its validation error, not a scope decision.
    expectProblem(await t.http('POST', '/v1/campaigns', { id: 42, name: 'x' }, as(TENANT)), 400, 'VALIDATION_FAILED');
  });

  it('lets an invalid campaign id through to its 400, whatever the scope', async () => {
    expectProblem(await t.http('GET', '/v1/campaigns/-bad', undefined, as(TENANT)), 400, 'INVALID_ID');
  });
});

describe('LOREKEEPER_API_KEYS format', () => {
  it.each([
    ['a short token', 'short'],
    ['a token with a space inside the entry', 'abcdefgh ijklmnopq'],
    ['a bad glob', 'abcdefghijklmnopq=acme/*'],
    ['only separators', ' , ,'],
  ])('stops the boot on %s with a message naming the variable and no token', async (_label, value) => {
    const err = await startTestApp({ env: { LOREKEEPER_API_KEYS: value } }).then(
      (app) => app.close().then(() => null),
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/LOREKEEPER_API_KEYS/);
    if (value.trim().replace(/,/g, '') !== '') expect(err?.message).not.toContain(value.split('=')[0]);
  });
});
