import { LorekeeperError } from '@app/client';
import { ServiceCall } from './service-call';

const json = (status: number, body: unknown, type = 'application/problem+json'): typeof fetch =>
  (async () => new Response(JSON.stringify(body), { status, headers: { 'content-type': type } })) as typeof fetch;
const problem = (status: number, code: string, detail: string, extra: object = {}) =>
  json(status, { status, code, detail, ...extra });

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
    const fetch = problem(404, 'CAMPAIGN_NOT_FOUND', 'campaign x not found');
    const call = new ServiceCall({ baseUrl: 'http://lk.test:3000', fetch });
    const text = await failure(call, () => call.client.changeLocation('x', 'inn'));
    expect(text).toBe(
      'POST http://lk.test:3000/v1/campaigns/x/commands/change-location → 404 CAMPAIGN_NOT_FOUND: ' +
        'campaign x not found',
    );
  });

  it('lists the fields a validation problem names', async () => {
    const errors = [{ path: 'messages.0.audience', message: 'audience goes with visibility "private"' }];
    const fetch = problem(400, 'VALIDATION_FAILED', 'invalid body', { errors });
    const call = new ServiceCall({ baseUrl: 'http://lk.test', fetch });
    const whisper = { role: 'player' as const, content: 'hi', audience: ['a'] };
    const text = await failure(call, () => call.client.recordMessages('c', [whisper]));
    expect(text).toContain('400 VALIDATION_FAILED: invalid body (messages.0.audience: audience goes with visibility');
  });

  it('explains a viewer-bound key instead of a bare 403', async () => {
    const fetch = problem(403, 'VIEWER_BOUND', 'this key reads as player:aria');
    const call = new ServiceCall({ baseUrl: 'http://lk.test', apiKey: 'k'.repeat(20), fetch });
    const text = await failure(call, () => call.client.contextText('c', { agent: 'dm' }));
    expect(text).toContain('GET http://lk.test/v1/campaigns/c/context?agent=dm&format=text → 403 VIEWER_BOUND');
    expect(text).toContain('this key reads as player:aria');
    expect(text).toContain('bound to one character');
    expect(text).toContain('LOREKEEPER_API_KEY');
  });

  it('says whether a 401 came from a missing or a refused key', async () => {
    const fetch = problem(401, 'UNAUTHORIZED', 'an Authorization: Bearer <token> header is required');
    const none = new ServiceCall({ baseUrl: 'http://lk.test', fetch });
    expect(await failure(none, () => none.client.getCampaign('c'))).toContain('sends no key: set LOREKEEPER_API_KEY');
    const wrong = new ServiceCall({ baseUrl: 'http://lk.test', apiKey: 'w'.repeat(20), fetch });
    const refused = await failure(wrong, () => wrong.client.getCampaign('c'));
    expect(refused).toContain('does not accept the key in LOREKEEPER_API_KEY');
  });

  it('sends the key it was given on every request', async () => {
    const seen: (string | null)[] = [];
    const answer = json(200, { items: [] }, 'application/json');
    const fetcher = (async (url: string, init?: RequestInit) => {
      seen.push(new Headers(init?.headers).get('authorization'));
      return answer(url, init);
    }) as typeof fetch;
    const call = new ServiceCall({ baseUrl: 'http://lk.test', apiKey: 'player-key-0123456789', fetch: fetcher });
    await call.client.memories('c');
    await call.client.search('c', { q: 'x' });
    expect(seen).toEqual(['Bearer player-key-0123456789', 'Bearer player-key-0123456789']);
  });

  it('names the base URL and the reason when the service cannot be reached', async () => {
    const refused = (async () => {
      const cause = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      throw new TypeError('fetch failed', { cause });
    }) as typeof fetch;
    const call = new ServiceCall({ baseUrl: 'http://lk.test:3999', fetch: refused });
    const text = await failure(call, () => call.client.getCampaign('c'));
    expect(text).toContain('Lorekeeper is not reachable at http://lk.test:3999');
    expect(text).toContain('GET http://lk.test:3999/v1/campaigns/c: ECONNREFUSED');
    expect(text).not.toMatch(/^fetch failed/);
  });

  it('gives up after timeoutMs and says so', async () => {
    const hang = ((_url: string, init?: RequestInit) =>
      new Promise((_res, rej) =>
        init?.signal?.addEventListener('abort', () => rej(init.signal!.reason)),
      )) as typeof fetch;
    const call = new ServiceCall({ baseUrl: 'http://lk.test', fetch: hang, timeoutMs: 50 });
    expect(await failure(call, () => call.client.getCampaign('c'))).toContain('no answer within 50 ms');
  });

  it('keeps a proxy error page short', async () => {
    const page = `<html>${'x'.repeat(5000)}</html>`;
    const headers = { 'content-type': 'text/html' };
    const html = (async () => new Response(page, { status: 502, headers })) as typeof fetch;
    const call = new ServiceCall({ baseUrl: 'http://lk.test', fetch: html });
    let err: unknown;
    await call.client.getCampaign('c').catch((e) => (err = e));
    expect(err).toBeInstanceOf(LorekeeperError);
    const text = call.describe(err);
    expect(text).toContain('502 HTTP_502');
    expect(text.length).toBeLessThan(700);
  });
});
