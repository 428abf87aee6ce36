import { directRoutesOf } from '../../../apps/memory-service/src/http/direct-routes';
import { startTestApp, TestApp } from '../../support/test-app';

/**
 * Issue 33: POST …/messages, and issue 29: GET …/context, are served by plain Fastify handlers
 * (http/direct-routes.ts), not Nest's pipeline. The swap happens when Nest registers the route, so a renamed route
 * would silently lose it: this names them. The answers themselves are the other specs' (api, write-meta, validation,
 * strict-input, route-table, context, access, …), unchanged.
 */
describe('routes served without Nest’s pipeline', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('is exactly POST /v1/campaigns/:cid/messages and GET /v1/campaigns/:cid/context', () => {
    expect(directRoutesOf(t.app.getHttpAdapter().getInstance()).sort()).toEqual([
      'GET /v1/campaigns/:cid/context',
      'POST /v1/campaigns/:cid/messages',
    ]);
  });

  it('answers as the Nest route did: 201 with ETag, then an idempotent replay, a bad id, a bad body', async () => {
    await t.http('POST', '/v1/campaigns', { id: 'direct', name: 'Direct' });
    const body = { messages: [{ role: 'dm', content: 'The bell tolls.' }] };
    const key = { 'idempotency-key': 'direct-1' };
    const first = await t.http('POST', '/v1/campaigns/direct/messages', body, key);
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ indexes: [0], version: 2 });
    expect(first.headers.get('etag')).toBe('"1:2"');
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const again = await t.http('POST', '/v1/campaigns/direct/messages', body, key);
    expect([again.status, again.body, again.headers.get('idempotent-replayed')]).toEqual([201, first.body, 'true']);
    const badId = await t.http('POST', '/v1/campaigns/constructor/messages', body);
    expect([badId.status, badId.body.code, badId.headers.get('content-type')]).toEqual([
      400,
      'INVALID_ID',
      'application/problem+json; charset=utf-8',
    ]);
    const badBody = await t.http('POST', '/v1/campaigns/direct/messages', { messages: [] });
    expect([badBody.status, badBody.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    const stale = await t.http('POST', '/v1/campaigns/direct/messages', body, { 'if-match': '"1:1"' });
    expect([stale.status, stale.body.code]).toEqual([412, 'VERSION_MISMATCH']);
  });

  it('answers a context as the Nest route did: JSON or text by Accept, Vary, and problem+json for bad input', async () => {
    await t.http('POST', '/v1/campaigns', { id: 'direct-read', name: 'Direct read' });
    await t.http('POST', '/v1/campaigns/direct-read/messages', {
      messages: [{ role: 'dm', content: 'Rain on the pier.' }],
    });
    const json = await t.http('GET', '/v1/campaigns/direct-read/context?agent=dm&budget=500');
    expect([json.status, json.headers.get('content-type'), json.headers.get('vary')]).toEqual([
      200,
      'application/json; charset=utf-8',
      'Accept',
    ]);
    expect(JSON.stringify(json.body.sections)).toContain('Rain on the pier.');
    const text = await t.http('GET', '/v1/campaigns/direct-read/context?agent=dm&format=text');
    expect([text.status, text.headers.get('content-type')]).toEqual([200, 'text/plain; charset=utf-8']);
    const badId = await t.http('GET', '/v1/campaigns/constructor/context');
    expect([badId.status, badId.body.code]).toEqual([400, 'INVALID_ID']);
    const badQuery = await t.http('GET', '/v1/campaigns/direct-read/context?nonsense=1');
    expect([badQuery.status, badQuery.body.code, badQuery.headers.get('content-type')]).toEqual([
      400,
      'VALIDATION_FAILED',
      'application/problem+json; charset=utf-8',
    ]);
    const badBudget = await t.http('GET', '/v1/campaigns/direct-read/context?budget=7');
    expect([badBudget.status, badBudget.body.code]).toEqual([400, 'INVALID_BUDGET']);
    const missing = await t.http('GET', '/v1/campaigns/nowhere/context');
    expect([missing.status, missing.body.code]).toEqual([404, 'CAMPAIGN_NOT_FOUND']);
  });
});
