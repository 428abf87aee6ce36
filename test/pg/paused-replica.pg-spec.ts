import { Client } from 'pg';
import { MockAnthropic, startMockAnthropic } from '../support/mock-anthropic';
import { ensureBuilt, ReplicaProcess, startReplica } from '../support/replica-process';
import { createTestSchema, TestSchema, testDatabaseUrl } from '../support/test-postgres';
import { describePg } from './describe-pg';

const TTL = 2000;
const POLL = 250;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describePg('a replica paused past its lease (SIGSTOP) and resumed', () => {
  let schema: TestSchema;
  let db: Client;
  let m1: MockAnthropic;
  let m2: MockAnthropic;
  const replicas: ReplicaProcess[] = [];
  const env = (mock: MockAnthropic) => ({
    DATABASE_URL: schema.url,
    LEASE_TTL_MS: String(TTL),
    LEASE_POLL_MS: String(POLL),
    SUMMARIZER: 'anthropic',
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: mock.baseUrl,
    SUMMARY_ATTEMPTS: '1',
    SUMMARY_TIMEOUT_MS: '60000',
  });

  beforeAll(async () => {
    ensureBuilt();
    schema = await createTestSchema(testDatabaseUrl()!);
    db = new Client({ connectionString: schema.url });
    await db.connect();
    m1 = await startMockAnthropic();
    m2 = await startMockAnthropic();
  }, 120_000);

  afterAll(async () => {
    for (const r of replicas) {
      r.kill('SIGCONT');
      r.kill('SIGKILL');
    }
    await Promise.all(replicas.map((r) => r.exited));
    await m1?.close();
    await m2?.close();
    await db?.end();
    await schema?.drop();
  }, 30_000);

  it('commits nothing for the campaign another replica took over meanwhile', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((r) => (answer = r));
    // p1's model call hangs until the test lets it answer (after the takeover).
    m1.setHandler(async () => {
      await answered;
      return { text: 'Summary by p1, from before the pause.' };
    });
    m2.setHandler(() => ({ text: 'Summary by p2, after the takeover.' }));

    const p1 = await startReplica('p1', env(m1));
    replicas.push(p1);
    const call = async (method: string, path: string, body?: unknown): Promise<any> => {
      const res = await fetch(`${p1.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${await res.text()}`);
      return res.json();
    };
    await call('POST', '/v1/campaigns', { id: 'paused', name: 'Paused' });
    await call('PUT', '/v1/campaigns/paused/locations/a', { name: 'Quay' });
    await call('PUT', '/v1/campaigns/paused/locations/b', { name: 'Tower' });
    await call('POST', '/v1/campaigns/paused/commands/change-location', { toLocationId: 'a' });
    await call('POST', '/v1/campaigns/paused/messages', {
      messages: [
        { role: 'player', content: 'We wait for the tide.' },
        { role: 'dm', content: 'The tide turns.' },
      ],
    });
    const { version } = await call('POST', '/v1/campaigns/paused/commands/change-location', { toLocationId: 'b' });

    await until('p1 to be summarizing', async () => m1.requests.length > 0);
    const p2 = await startReplica('p2', env(m2));
    replicas.push(p2);
    p1.kill('SIGSTOP');

    // p1's lease runs out while it is frozen; p2 takes the campaign over and records the memory.
    const memory = await until(
      'p2 to record the memory',
      async () =>
        (
          await db.query(`SELECT summary FROM memories WHERE campaign_id = 'paused' AND trigger_version = $1`, [
            version,
          ])
        ).rows[0],
    );
    expect(memory.summary).toBe('Summary by p2, after the takeover.');

    // p1 wakes up with its model's answer already waiting, and its renewal overdue.
    answer();
    await sleep(200);
    p1.kill('SIGCONT');
    const report = await until('p1 to notice it lost the lease', async () => {
      const ready = await fetch(`${p1.url}/health/ready`).then((r) => r.json() as Promise<any>);
      return ready.replica.leasesLost >= 1 && ready;
    });
    expect(report.status).toBe('ok');
    await sleep(TTL); // time enough for any commit p1 might still attempt

    const recorded = await db.query(`SELECT data FROM events WHERE stream_id = 'memory-paused'`);
    const summaries = recorded.rows.map((r) => JSON.parse(r.data).summary);
    expect(summaries).toEqual(['Summary by p2, after the takeover.']);
    const { rows } = await db.query(
      `SELECT version, processed_version FROM campaigns c JOIN memory_checkpoints k ON k.campaign_id = c.id WHERE c.id = 'paused'`,
    );
    expect(rows[0]).toEqual({ version, processed_version: version });
    expect(m1.requests).toHaveLength(1);
    const takeovers = (await fetch(`${p2.url}/health/ready`).then((r) => r.json() as Promise<any>)).replica
      .recentTakeovers;
    expect(takeovers).toEqual([expect.objectContaining({ campaignId: 'paused', from: 'p1' })]);
    // Usage ledger (§12): p2's call went into the memory; p1's is counted once, as abandoned, whoever marked it.
    const calls = (
      await db.query(
        `SELECT outcome, memory_id, output_tokens FROM model_calls WHERE campaign_id = 'paused' ORDER BY id`,
      )
    ).rows;
    expect(calls.filter((c) => c.outcome === 'ok')).toEqual([
      expect.objectContaining({
        memory_id: `paused:${version}:location:a`,
        output_tokens: String(m2.delivered.output),
      }),
    ]);
    expect(calls.filter((c) => c.outcome !== 'ok').map((c) => c.outcome)).toEqual(['abandoned']);
  }, 120_000);
});
