import { defaultMockHandler, MockAnthropic, startMockAnthropic } from '../../support/mock-anthropic';
import { ensureBuilt, startServiceProcess, ServiceProcess } from '../../support/service-process';
import { request, tempDb } from '../../support/test-app';

jest.setTimeout(60_000);

/** The built service as a child process: SIGTERM with a request and a summary in flight. */
describe('SIGTERM graceful shutdown (built service)', () => {
  let mock: MockAnthropic;
  let hang = true;
  const db = tempDb();
  const procs: ServiceProcess[] = [];

  beforeAll(async () => {
    ensureBuilt();
    mock = await startMockAnthropic();
    mock.setHandler((body, n) => (hang ? { hang: true } : defaultMockHandler(body, n)));
  });
  afterAll(async () => {
    for (const p of procs) p.kill('SIGKILL');
    await mock.close();
    db.cleanup();
  });

  const boot = async (timeoutMs: number) => {
    const p = await startServiceProcess({
      dbPath: db.path,
      env: {
        SUMMARIZER: 'anthropic',
        ANTHROPIC_API_KEY: 'test-key',
        ANTHROPIC_BASE_URL: mock.baseUrl,
        SUMMARY_TIMEOUT_MS: String(timeoutMs),
        SUMMARY_ATTEMPTS: '2',
      },
    });
    procs.push(p);
    return p;
  };

  /** How a service ended, with its output when that was not a clean exit (one CI run saw a SIGABRT here). */
  const exitOf = async (p: ServiceProcess) => {
    const exit = await p.exited;
    return { ...exit, output: exit.code === 0 && exit.signal === null ? '' : p.output() };
  };
  const CLEAN_EXIT = { code: 0, signal: null, output: '' };

  const waitFor = async (what: string, ok: () => boolean, ms = 10_000) => {
    const until = Date.now() + ms;
    while (!ok()) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('finishes the request in flight, abandons the summary in flight without advancing anything, and exits 0; after a restart the trigger is processed once', async () => {
    const svc = await boot(60_000);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await request(svc.url, method, path, body);
      if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
      return res.body;
    };
    await call('POST', '/v1/campaigns', { id: 'term', name: 'Shutdown' });
    await call('PUT', '/v1/campaigns/term/locations/a', { name: 'Alpha' });
    await call('PUT', '/v1/campaigns/term/locations/b', { name: 'Beta' });
    await call('POST', '/v1/campaigns/term/commands/change-location', { toLocationId: 'a' });
    await call('POST', '/v1/campaigns/term/messages', {
      messages: [{ role: 'dm', content: 'The bell of Alpha rings twice.' }],
    });
    const trigger = (await call('POST', '/v1/campaigns/term/commands/change-location', { toLocationId: 'b' }))
      .version as number;
    await waitFor('the summary request to reach the model', () => mock.requests.length >= 1);

    // A read that waits (up to 2.5 s) for a version that never comes: it is in flight when SIGTERM lands.
    const inFlight = request(svc.url, 'GET', `/v1/campaigns/term/context?minVersion=${trigger + 100}&waitMs=2500`);
    await new Promise((r) => setTimeout(r, 300));
    const sentAt = Date.now();
    svc.kill('SIGTERM');

    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(answered.body.version).toBe(trigger);
    expect(await exitOf(svc)).toEqual(CLEAN_EXIT);
    expect(Date.now() - sentAt).toBeLessThan(10_000);
    expect(svc.output()).toMatch(/SIGTERM received/);
    expect(svc.output()).toMatch(/shutdown complete/);
    expect(svc.output()).not.toMatch(/memory recorded|summary failed/);

    // Restart with the model still hanging: nothing of the abandoned summary was committed.
    const asked = mock.requests.length;
    const again = await boot(1500);
    await waitFor('the restarted worker to ask the model again', () => mock.requests.length > asked);
    const before = await request(again.url, 'GET', '/v1/campaigns/term');
    expect(before.body.processedVersion).toBeLessThan(trigger);
    expect(before.body.cursors.locations).toEqual({});
    expect((await request(again.url, 'GET', '/v1/campaigns/term/events?stream=memory')).body.items).toEqual([]);

    // The model recovers: the retry after the hung attempt's timeout records the memory, once.
    hang = false;
    const settled = await request(again.url, 'GET', `/v1/campaigns/term/context?minVersion=${trigger}&waitMs=15000`);
    expect(settled.body.processedVersion).toBe(trigger);
    const memoryEvents = (await request(again.url, 'GET', '/v1/campaigns/term/events?stream=memory')).body.items;
    expect(memoryEvents.map((e: any) => [e.type, e.data.scope, e.data.subjectId, e.data.triggerVersion])).toEqual([
      ['MemoryRecorded', 'location', 'a', trigger],
    ]);
    expect((await request(again.url, 'GET', '/v1/campaigns/term')).body.cursors.locations).toEqual({ a: 0 });

    again.kill('SIGTERM');
    expect(await exitOf(again)).toEqual(CLEAN_EXIT);
  });
});
