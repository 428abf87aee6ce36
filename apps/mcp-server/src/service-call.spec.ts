import { LorekeeperError } from '@app/client';
import { ServiceCall } from './service-call';

const problem = (status: number, body: Record<string, unknown>): typeof fetch =>
  (async () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/problem+json' } })) as typeof fetch;

async function failure(call: ServiceCall, run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (err) {
    return call.describe(err);
  }
  throw new Error('the call did not fail');
}

describe('ServiceCall error messages', () => {
  it('names the request, status, code and detail of a problem answer', async () => {
    const call = new ServiceCall({ baseUrl: 'http://lk.test:3000', fetch: problem(404, { status: 404, code: 'CAMPAIGN_NOT_FOUND', detail: 'campaign x not found' }) });
    const text = await failure(call, () => call.client.changeLocation('x', 'inn'));
    expect(text).toBe('POST http://lk.test:3000/v1/campaigns/x/commands/change-location → 404 CAMPAIGN_NOT_FOUND: campaign x not found');
  });

  it('lists the fields a validation problem names', async () => {
    const body = { status: 400, code: 'VALIDATION_FAILED', detail: 'invalid body', errors: [{ path: 'messages.0.audience', message: 'audience goes with visibility "private"' }] };
    const call = new ServiceCall({ baseUrl: 'http://lk.test', fetch: problem(400, body) });
    const text = await failure(call, () => call.client.recordMessages('c', [{ role: 'player', content: 'hi', audience: ['a'] }]));
    expect(text).toContain('400 VALIDATION_FAILED: invalid body (messages.0.audience: audience goes with visibility "private")');
  });

  it('explains a viewer-bound key instead of a bare 403', async () => {
    const body = { status: 403, code: 'VIEWER_BOUND', detail: 'this key reads as player:aria; agent=dm is not allowed' };
    const call = new ServiceCall({ baseUrl: 'http://lk.test', apiKey: 'k'.repeat(20), fetch: problem(403, body) });
    const text = await failure(call, () => call.client.contextText('c', { agent: 'dm' }));
    expect(text).toContain('GET http://lk.test/v1/campaigns/c/context?agent=dm&format=text → 403 VIEWER_BOUND: this key reads as player:aria');
    expect(text).toContain('bound to one character');
    expect(text).toContain('LOREKEEPER_API_KEY');
  });

  it('says whether a 401 came from a missing or a refused key', async () => {
    const body = { status: 401, code: 'UNAUTHORIZED', detail: 'an Authorization: Bearer <token> header is required' };
    const none = new ServiceCall({ baseUrl: 'http://lk.test', fetch: problem(401, body) });
    expect(await failure(none, () => none.client.getCampaign('c'))).toContain('sends no key: set LOREKEEPER_API_KEY');
    const wrong = new ServiceCall({ baseUrl: 'http://lk.test', apiKey: 'w'.repeat(20), fetch: problem(401, body) });
    expect(await failure(wrong, () => wrong.client.getCampaign('c'))).toContain('does not accept the key in LOREKEEPER_API_KEY');
  });

  it('sends the key it was given on every request', async () => {
    const seen: (string | null)[] = [];
    const fetcher = (async (_url: string, init?: RequestInit) => {
      seen.push(new Headers(init?.headers).get('authorization'));
      return new Response('{"items":[]}', { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    const call = new ServiceCall({ baseUrl: 'http://lk.test', apiKey: 'player-key-0123456789', fetch: fetcher });
    await call.client.memories('c');
    await call.client.search('c', { q: 'x' });
    expect(seen).toEqual(['Bearer player-key-0123456789', 'Bearer player-key-0123456789']);
  });

  it('names the base URL and the reason when the service cannot be reached', async () => {
    const refused = (async () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    }) as typeof fetch;
    const call = new ServiceCall({ baseUrl: 'http://lk.test:3999', fetch: refused });
    const text = await failure(call, () => call.client.getCampaign('c'));
    expect(text).toContain('Lorekeeper is not reachable at http://lk.test:3999');
    expect(text).toContain('GET http://lk.test:3999/v1/campaigns/c: ECONNREFUSED');
    expect(text).not.toMatch(/^fetch failed/);
  });

  it('gives up after timeoutMs and says so', async () => {
    const hang = ((_url: string, init?: RequestInit) =>
      new Promise((_res, rej) => init?.signal?.addEventListener('abort', () => rej(init.signal!.reason)))) as typeof fetch;
    const call = new ServiceCall({ baseUrl: 'http://lk.test', fetch: hang, timeoutMs: 50 });
    expect(await failure(call, () => call.client.getCampaign('c'))).toContain('no answer within 50 ms');
  });

  it('keeps a proxy error page short', async () => {
    const html = (async () => new Response(`<html>${'x'.repeat(5000)}</html>`, { status: 502, headers: { 'content-type': 'text/html' } })) as typeof fetch;
    const call = new ServiceCall({ baseUrl: 'http://lk.test', fetch: html });
    let err: unknown;
    await call.client.getCampaign('c').catch((e) => (err = e));
    expect(err).toBeInstanceOf(LorekeeperError);
    const text = call.describe(err);
    expect(text).toContain('502 HTTP_502');
    expect(text.length).toBeLessThan(700);
  });
});
