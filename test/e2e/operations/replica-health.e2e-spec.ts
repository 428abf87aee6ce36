import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

/** Readiness and replica metrics; runs on SQLite (single process) and, with TEST_DATABASE_URL, on PostgreSQL. */
describe('GET /health/ready and /metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { REPLICA_ID: 'replica-e2e' } });
  });
  afterAll(async () => t.close());

  it('reports the database, the worker, this replica and its leases', async () => {
    const s = scenario(t, 'ready');
    await s.create();
    await s.location('inn', 'The Inn');
    await s.move('inn');
    await s.say({ role: 'player', content: 'A quiet evening.' });
    await s.location('road', 'The Road');
    await s.move('road');
    await s.settled();
    // The worker lets go of its lease just after the checkpoint moves.
    let res = await t.http('GET', '/health/ready');
    for (let i = 0; i < 50 && res.body.replica.leasesHeld > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await t.http('GET', '/health/ready');
    }
    expect(res.status).toBe(200);
    const postgres = t.config.database.type === 'postgres';
    expect(res.body).toEqual({
      status: 'ok',
      database: 'up',
      worker: 'running',
      replica: expect.objectContaining({
        id: 'replica-e2e',
        mode: postgres ? 'postgres-leases' : 'single-process',
        leases: [],
        leasesHeld: 0,
        takeovers: 0,
        leasesLost: 0,
        workerLag: { campaigns: 0, events: 0 },
      }),
    });
    // Leases are taken only while work runs, so a caught-up replica holds none; PostgreSQL counted them.
    if (postgres) expect(res.body.replica.acquisitions).toBeGreaterThan(0);
  });

  it('serves the replica counters as Prometheus text', async () => {
    const res = await t.http('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/^lorekeeper_leases_held\{replica="replica-e2e"\} 0$/m);
    expect(res.text).toMatch(/^lorekeeper_lease_takeovers_total\{replica="replica-e2e"\} 0$/m);
    expect(res.text).toMatch(/^lorekeeper_worker_lag_events\{replica="replica-e2e"\} 0$/m);
  });
});
