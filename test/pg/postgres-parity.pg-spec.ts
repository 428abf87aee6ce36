import { MIGRATIONS } from '../../apps/memory-service/src/migrations';
import { scenario } from '../support/scenario';
import { startTestApp, tempDb, TestApp } from '../support/test-app';
import { adminQuery, schemaForPath, testDatabaseUrl } from '../support/test-postgres';
import { describePg } from './describe-pg';

/** Two app instances on one PostgreSQL schema: two replicas, each with its own pool, in this process. */
describePg('the service on PostgreSQL, two replicas in one schema', () => {
  const key = tempDb().path;
  let a: TestApp;
  let b: TestApp;
  const env = (id: string) => ({ REPLICA_ID: id, LEASE_POLL_MS: '200', LEASE_TTL_MS: '2000' });
  beforeAll(async () => {
    [a, b] = await Promise.all([
      startTestApp({ dbPath: key, env: env('a') }),
      startTestApp({ dbPath: key, env: env('b') }),
    ]);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });
  const statusesOf = (rs: { status: number }[]) => rs.map((r) => r.status).sort();

  it('runs on PostgreSQL, its tables in the app schema, migrations recorded once although both booted together', async () => {
    expect(a.config.database.type).toBe('postgres');
    const schema = schemaForPath(key);
    const tables = (
      await adminQuery(testDatabaseUrl()!, `SELECT table_name FROM information_schema.tables WHERE table_schema = $1`, [
        schema,
      ])
    ).map((r) => r.table_name);
    expect(tables).toEqual(
      expect.arrayContaining([
        'events',
        'campaigns',
        'messages',
        'memories',
        'memory_cursors',
        'idempotency_keys',
        'leases',
        'migrations',
      ]),
    );
    const [row] = await adminQuery(testDatabaseUrl()!, `SELECT count(*)::int AS n FROM "${schema}".migrations`);
    expect(row.n).toBe(MIGRATIONS.length);
  });

  it('accepts concurrent writes to one campaign through both replicas: no 5xx, no rejection, versions gapless', async () => {
    await scenario(a, 'busy').create();
    const posts = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).http('POST', '/v1/campaigns/busy/messages', {
          messages: [{ role: 'player', content: `line ${i}` }],
        }),
      ),
    );
    expect(statusesOf(posts)).toEqual(Array(40).fill(201));
    expect(posts.map((r) => r.body.version).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 2));
    expect(posts.flatMap((r) => r.body.indexes).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    const campaign = await b.http('GET', '/v1/campaigns/busy');
    expect(campaign.body.version).toBe(41);
    expect(typeof campaign.body.processedVersion).toBe('number');
    const events = await a.http('GET', '/v1/campaigns/busy/events?limit=100');
    expect(events.body.items.map((e: { version: number }) => e.version)).toEqual(
      Array.from({ length: 41 }, (_, i) => i + 1),
    );
  });

  it('creates a campaign once when both replicas race to create the same id: the rest are 409, never 5xx', async () => {
    const creates = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 ? a : b).http('POST', '/v1/campaigns', { id: 'twin', name: `Twin ${i}` }),
      ),
    );
    expect(statusesOf(creates)).toEqual([201, 409, 409, 409, 409, 409]);
    expect(creates.filter((r) => r.status === 409).every((r) => r.body.code === 'CAMPAIGN_EXISTS')).toBe(true);
    expect((await a.http('GET', '/v1/campaigns/twin')).body.version).toBe(1);
  });

  it('answers one Idempotency-Key sent to both replicas at once with one response and one append', async () => {
    await scenario(a, 'idem').create();
    const headers = { 'idempotency-key': 'same-key-1' };
    const body = { messages: [{ role: 'dm', content: 'Once only.' }] };
    const rs = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).http('POST', '/v1/campaigns/idem/messages', body, headers)),
    );
    expect(statusesOf(rs)).toEqual(Array(8).fill(201));
    expect(new Set(rs.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect((await a.http('GET', '/v1/campaigns/idem')).body.version).toBe(2);
  });

  it('lets exactly one of several writes with the same If-Match win; the others get 412', async () => {
    await scenario(a, 'ifmatch').create();
    const rs = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 ? a : b).http(
          'POST',
          '/v1/campaigns/ifmatch/messages',
          { messages: [{ role: 'dm', content: `try ${i}` }] },
          { 'if-match': '1' },
        ),
      ),
    );
    expect(statusesOf(rs)).toEqual([201, 412, 412, 412, 412, 412]);
    expect((await b.http('GET', '/v1/campaigns/ifmatch')).body.version).toBe(2);
  });

  it('links tool results to earlier tool calls across replicas, and refuses a result naming no call', async () => {
    await scenario(a, 'tools').create();
    const call = { role: 'assistant', content: 'Checking the ship.', toolCalls: [{ id: 'call-1', name: 'get_ship' }] };
    expect((await a.http('POST', '/v1/campaigns/tools/messages', { messages: [call] })).status).toBe(201);
    // The same call id again is stored once (insert … ON CONFLICT DO NOTHING on PostgreSQL).
    expect(
      (await b.http('POST', '/v1/campaigns/tools/messages', { messages: [{ ...call, content: 'Again.' }] })).status,
    ).toBe(201);
    const result = await b.http('POST', '/v1/campaigns/tools/messages', {
      messages: [{ role: 'tool', content: '{"hull": 90}', toolCallId: 'call-1' }],
    });
    expect(result.status).toBe(201);
    const unknown = await a.http('POST', '/v1/campaigns/tools/messages', {
      messages: [{ role: 'tool', content: '{}', toolCallId: 'call-9' }],
    });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'TOOL_CALL_NOT_FOUND']);
    expect((await a.http('GET', '/v1/campaigns/tools')).body.version).toBe(4);
  });

  it('records each memory once, whichever replica does the work, and both see processedVersion reach version', async () => {
    for (let c = 0; c < 6; c++) {
      const s = scenario(c % 2 ? a : b, `mem-${c}`);
      await s.create();
      await s.location('inn', 'The Inn');
      await s.location('road', 'The Road');
      await s.npc('mara', 'Mara', 'inn');
      await s.move('inn');
      await s.say(
        { role: 'player', content: 'Mara, what news?' },
        { role: 'npc', speaker: 'Mara', content: 'Wolves on the road.' },
      );
      await s.move('road');
      await s.say({ role: 'player', content: 'Back we go.' });
      await s.move('inn');
    }
    for (let c = 0; c < 6; c++) {
      const other = c % 2 ? b : a;
      const campaign = await other.http('GET', `/v1/campaigns/mem-${c}`);
      const ctx = await other.http(
        'GET',
        `/v1/campaigns/mem-${c}/context?minVersion=${campaign.body.version}&waitMs=15000`,
      );
      expect(ctx.body.processedVersion).toBe(campaign.body.version);
      const memories = (await other.http('GET', `/v1/campaigns/mem-${c}/memories?limit=50`)).body.items;
      const keys = memories.map(
        (m: { scope: string; subjectId: string; triggerVersion: number }) =>
          `${m.scope}:${m.subjectId}@${m.triggerVersion}`,
      );
      expect(keys.sort()).toEqual(['location:inn@8', 'location:road@10', 'npc:mara@8']);
    }
    // The earlier tests' campaigns catch up too; then both replicas report no lag.
    const readyBoth = () => Promise.all([a.http('GET', '/health/ready'), b.http('GET', '/health/ready')]);
    let ready = await readyBoth();
    for (let i = 0; i < 100 && ready.some((r) => r.body.replica.workerLag.campaigns > 0); i++) {
      await new Promise((r) => setTimeout(r, 100));
      ready = await readyBoth();
    }
    for (const r of ready) {
      expect(r.status).toBe(200);
      expect(r.body).toEqual(expect.objectContaining({ status: 'ok', database: 'up', worker: 'running' }));
      expect(r.body.replica.mode).toBe('postgres-leases');
      expect(r.body.replica.workerLag).toEqual({ campaigns: 0, events: 0 });
    }
    expect(ready[0].body.replica.acquisitions + ready[1].body.replica.acquisitions).toBeGreaterThan(0);
    const metrics = await a.http('GET', '/metrics');
    expect(metrics.text).toMatch(/^lorekeeper_lease_acquisitions_total\{replica="a"\} \d+$/m);
  });
});
