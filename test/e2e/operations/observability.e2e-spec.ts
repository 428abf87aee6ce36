import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

describe('observability: request ids, structured logs, metrics, health', () => {
  let t: TestApp;
  const logs: string[] = [];
  beforeAll(async () => {
    t = await startTestApp({ logs });
  });
  afterAll(async () => t.close());

  const parsed = () => logs.flatMap((l) => l.split('\n').filter(Boolean)).map((l) => JSON.parse(l));

  it('carries the request id into the events metadata and the worker log lines of that trigger', async () => {
    const s = scenario(t, 'obs');
    await s.create();
    await s.location('a', 'Alpha');
    await s.location('b', 'Beta');
    await s.move('a');
    await s.say({ role: 'dm', content: 'The bell rings twice.' });
    const moved = await t.http(
      'POST',
      '/v1/campaigns/obs/commands/change-location',
      { toLocationId: 'b' },
      { 'x-request-id': 'req-move-42' },
    );
    expect(moved.status).toBe(202);
    expect(moved.headers.get('x-request-id')).toBe('req-move-42');
    await s.settled();
    const events = await t.http('GET', '/v1/campaigns/obs/events?stream=game');
    const move = events.body.items.find((e: any) => e.version === moved.body.version);
    expect(move.metadata.correlationId).toBe('req-move-42');
    const memoryEvents = await t.http('GET', '/v1/campaigns/obs/events?stream=memory');
    expect(memoryEvents.body.items[0].metadata.correlationId).toBe('req-move-42');
    const lines = parsed();
    expect(
      lines.some(
        (l) =>
          l.msg === 'memory recorded' &&
          l.correlationId === 'req-move-42' &&
          l.campaignId === 'obs' &&
          l.triggerVersion === moved.body.version,
      ),
    ).toBe(true);
    expect(lines.some((l) => l.req?.id === 'req-move-42' || l.correlationId === 'req-move-42')).toBe(true);
  });

  it('serves Prometheus metrics: HTTP histogram by route, events by type, memories by scope, worker lag', async () => {
    const res = await t.http('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.text).toMatch(
      /lorekeeper_http_request_duration_seconds_count\{method="POST",route="\/v1\/campaigns\/:cid\/commands\/change-location",status="202"\} \d+/,
    );
    expect(res.text).toMatch(/lorekeeper_events_appended_total\{type="MessageRecorded"\} 1/);
    expect(res.text).toMatch(/lorekeeper_memories_recorded_total\{scope="location"\} 1/);
    expect(res.text).toMatch(/lorekeeper_summarizer_calls_total\{scope="location"\} 1/);
    expect(res.text).toMatch(/lorekeeper_worker_lag_events\{replica="[^"]+"\} 0/);
    expect(res.text).toMatch(/lorekeeper_leases_held\{replica="[^"]+"\} 0/);
  });

  it('reports liveness and readiness', async () => {
    const live = await t.http('GET', '/health');
    expect(live.status).toBe(200);
    expect(live.body.status).toBe('ok');
    expect(live.body.info.database.status).toBe('up');
    const ready = await t.http('GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: 'ok',
      database: 'up',
      worker: 'running',
      replica: { workerLag: { campaigns: 0, events: 0 } },
    });
  });
});
