import { randomBytes } from 'node:crypto';
import { MockAnthropic, startMockAnthropic } from '../../support/mock-anthropic';
import { ensureBuilt, ServiceProcess, startServiceProcess } from '../../support/service-process';
import { request, tempDb } from '../../support/test-app';

jest.setTimeout(60_000);

/** Credentials never reach logs, problem details, events or metrics (built service, logs captured). */
describe('secrets stay secret (built service)', () => {
  let mock: MockAnthropic;
  const procs: ServiceProcess[] = [];
  const dbs: Array<{ path: string; cleanup(): void }> = [];

  beforeAll(async () => {
    ensureBuilt();
    mock = await startMockAnthropic();
  });
  afterAll(async () => {
    for (const p of procs) p.kill('SIGKILL');
    await mock.close();
    for (const d of dbs) d.cleanup();
  });

  const boot = async (env: Record<string, string>) => {
    const db = tempDb();
    dbs.push(db);
    const p = await startServiceProcess({ dbPath: db.path, env });
    procs.push(p);
    return p;
  };

  it('never shows the model provider key, even when the provider echoes it back in a 401', async () => {
    const secret = `sk-ant-SECRET-${randomBytes(18).toString('hex')}`;
    const credential = (n: number) =>
      String(mock.requests[n].headers['x-api-key'] ?? mock.requests[n].headers.authorization);
    // A hostile or misconfigured upstream that reflects the request headers in its error message.
    mock.setHandler((_body, n) => ({
      status: 401,
      body: {
        type: 'error',
        error: {
          type: 'authentication_error',
          message: `invalid credentials ${credential(n)} (raw ${credential(n).replace(/^Bearer /, '')}); headers ${JSON.stringify(mock.requests[n].headers)}`,
        },
      },
    }));
    const svc = await boot({
      SUMMARIZER: 'anthropic',
      ANTHROPIC_API_KEY: secret,
      ANTHROPIC_BASE_URL: mock.baseUrl,
      SUMMARY_ATTEMPTS: '2',
    });
    const seen: string[] = [];
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await request(svc.url, method, path, body);
      seen.push(res.text, JSON.stringify([...res.headers]));
      return res;
    };
    await call('POST', '/v1/campaigns', { id: 'sec', name: 'Secrets' });
    await call('PUT', '/v1/campaigns/sec/locations/a', { name: 'A' });
    await call('PUT', '/v1/campaigns/sec/locations/b', { name: 'B' });
    await call('POST', '/v1/campaigns/sec/commands/change-location', { toLocationId: 'a' });
    await call('POST', '/v1/campaigns/sec/messages', { messages: [{ role: 'dm', content: 'A door creaks.' }] });
    const moved = (await call('POST', '/v1/campaigns/sec/commands/change-location', { toLocationId: 'b' })).body
      .version;
    const settled = await call('GET', `/v1/campaigns/sec/context?minVersion=${moved}&waitMs=15000`);
    expect(settled.body.processedVersion).toBe(moved);

    const skipped = (await call('GET', '/v1/campaigns/sec/events?stream=memory')).body.items;
    expect(skipped).toHaveLength(1);
    expect(skipped[0].type).toBe('MemorySkipped');
    expect(skipped[0].data.reason).toMatch(/401/);
    for (const path of [
      '/v1/campaigns/sec',
      '/v1/campaigns/sec/events',
      '/v1/campaigns/sec/memories',
      '/v1/campaigns/sec/context?format=text',
      '/metrics',
      '/health',
      '/docs',
    ])
      await call('GET', path);
    await call('GET', '/v1/campaigns/sec/no-such-route');

    // The test could fail: the key really went out and really came back.
    expect(credential(0)).toContain(secret);
    const hexPart = secret.slice('sk-ant-SECRET-'.length);
    const everything = [svc.output(), ...seen].join('\n');
    expect(svc.output()).toMatch(/summary failed after 2 attempts/);
    expect(everything).not.toContain(hexPart);
    expect(everything).not.toContain(hexPart.slice(0, 12));
  });

  it('logs one clear warning at boot when LOREKEEPER_API_KEYS is unset, and never logs the bearer tokens when it is set', async () => {
    const open = await boot({});
    expect(open.output().match(/LOREKEEPER_API_KEYS is not set: the API is UNAUTHENTICATED/g)).toHaveLength(1);

    const token = `tok-${randomBytes(16).toString('hex')}`;
    const wrong = `bad-${randomBytes(16).toString('hex')}`;
    const closed = await boot({ LOREKEEPER_API_KEYS: `${token}=acme-*` });
    expect(closed.output()).not.toMatch(/UNAUTHENTICATED/);
    const seen: string[] = [];
    for (const auth of [token, wrong]) {
      for (const [method, path, body] of [
        ['POST', '/v1/campaigns', { id: 'acme-1', name: 'A' }],
        ['GET', '/v1/campaigns/acme-1'],
        ['GET', '/v1/campaigns/other'],
        ['POST', '/v1/campaigns/acme-1/messages', { messages: [{ role: 'dm', content: 'x' }] }],
      ] as const) {
        const res = await request(closed.url, method, path, body, { authorization: `Bearer ${auth}` });
        seen.push(res.text, JSON.stringify([...res.headers]));
      }
    }
    const everything = [closed.output(), ...seen].join('\n');
    expect(everything).not.toContain(token.slice(4));
    expect(everything).not.toContain(wrong.slice(4));
  });
});
