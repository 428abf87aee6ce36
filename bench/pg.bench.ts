/**
 * Several replicas on one PostgreSQL (DESIGN §9): ingest requests/s and memory-worker throughput with
 * 1 and 3 replicas, plus the single-replica figures on SQLite in the same run.
 *   npm run build && node dist/bench/pg.bench.js [--quick]
 * Skipped, with the reason, when no PostgreSQL can be started. `--only=ingest|worker` runs one part;
 * PG_BENCH_PROFILE=<dir> writes a CPU profile of every replica there.
 */
import { CampaignCommand, CampaignProjector, CampaignRunner } from '@app/campaign';
import { SystemClock } from '@app/common';
import { TypeOrmEventStore } from '@app/event-store';
import { createDataSource, Database, runMigrations } from '@app/database';
import { CheckpointProjection } from '@app/memory';
import autocannon from 'autocannon';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENTITIES } from '../apps/memory-service/src/core.module';
import { MIGRATIONS } from '../apps/memory-service/src/migrations';
import { MockAnthropic, startMockAnthropic } from '../test/support/mock-anthropic';
import { startPostgres } from '../test/support/postgres-server';
import { ensureBuilt, projectRoot, ReplicaProcess, startReplica } from '../test/support/replica-process';
import { adminQuery, createTestSchema } from '../test/support/test-postgres';

export interface PgBenchOptions {
  quick: boolean;
  /** Run only these parts (default both). */
  only?: Array<'ingest' | 'worker'>;
}

type Setup = { label: string; replicas: number; database: () => Promise<{ url: string; drop(): Promise<void> }> };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MODEL_MS = 200;

function sqliteDatabase() {
  const dir = mkdtempSync(join(tmpdir(), 'lorekeeper-bench-'));
  return Promise.resolve({
    url: `sqlite:${join(dir, 'bench.db')}`,
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  });
}

async function startReplicas(n: number, env: Record<string, string>): Promise<ReplicaProcess[]> {
  // One after another: replicas booting together would race for the 2 cores, not for anything we measure.
  const out: ReplicaProcess[] = [];
  const profile = process.env.PG_BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PG_BENCH_PROFILE}`] : [];
  for (let i = 0; i < n; i++) out.push(await startReplica(`bench-${i + 1}`, env, profile));
  return out;
}

async function stopReplicas(replicas: ReplicaProcess[]): Promise<void> {
  for (const r of replicas) r.kill('SIGTERM');
  await Promise.all(replicas.map((r) => Promise.race([r.exited, sleep(12_000).then(() => r.kill('SIGKILL'))])));
}

async function post(url: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${url}${path}`, {
    method: path.endsWith('/campaigns') ? 'POST' : 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path} → ${res.status} ${await res.text()}`);
}

/** POST /messages through every replica at once (connections split evenly), for `seconds`. */
async function ingest(setup: Setup, o: { campaigns: number; connections: number; seconds: number }) {
  const database = await setup.database();
  const replicas = await startReplicas(setup.replicas, { DATABASE_URL: database.url, SUMMARIZER: 'local' });
  try {
    for (let c = 0; c < o.campaigns; c++)
      await post(replicas[c % replicas.length].url, '/v1/campaigns', { id: `c${c}`, name: `Campaign ${c}` });
    let n = 0;
    const runs = replicas.map(
      (r) =>
        new Promise<autocannon.Result>((resolve, reject) => {
          autocannon(
            {
              url: r.url,
              connections: Math.max(1, Math.round(o.connections / replicas.length)),
              duration: o.seconds,
              requests: [
                {
                  method: 'POST',
                  setupRequest: (req) => {
                    n++;
                    return {
                      ...req,
                      path: `/v1/campaigns/c${n % o.campaigns}/messages`,
                      headers: { 'content-type': 'application/json' },
                      body: JSON.stringify({
                        messages: [{ role: 'player', content: `Line ${n}: the party presses on through the rain.` }],
                      }),
                    };
                  },
                },
              ],
            },
            (err, result) => (err ? reject(err) : resolve(result)),
          );
        }),
    );
    const results = await Promise.all(runs);
    const total = results.reduce((s, r) => s + r.requests.total, 0);
    const non2xx = results.reduce((s, r) => s + r.non2xx + r.errors, 0);
    return {
      setup: setup.label,
      replicas: setup.replicas,
      reqPerSec: Math.round(total / o.seconds),
      p50Ms: Math.max(...results.map((r) => r.latency.p50)),
      p99Ms: Math.max(...results.map((r) => r.latency.p99)),
      failed: non2xx,
    };
  } finally {
    await stopReplicas(replicas);
    await database.drop();
  }
}

/** CPU time (user + system, ms) a process has used so far, from /proc/<pid>/stat; null off Linux. */
function cpuMs(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

/** CPU used so far by the replicas and by PostgreSQL's client backends (the bench's own server: only ours). */
async function cpuSnapshot(replicas: ReplicaProcess[], pgUrl: string | null) {
  const backends = pgUrl
    ? ((await adminQuery(
        pgUrl,
        `SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      )) as Array<{ pid: number }>)
    : [];
  return {
    replicas: replicas.map((r) => cpuMs(r.child.pid)),
    backends: new Map(backends.map((b) => [b.pid, cpuMs(b.pid)])),
  };
}

/**
 * CPU per summary between two snapshots: replicas (boot excluded) and PostgreSQL (backends that exited meanwhile are
 * missed).
 */
function cpuPerSummary(
  before: Awaited<ReturnType<typeof cpuSnapshot>>,
  after: Awaited<ReturnType<typeof cpuSnapshot>>,
  summaries: number,
) {
  if (after.replicas.some((v) => v === null)) return null;
  const node = after.replicas.reduce((s: number, v, i) => s + (v! - (before.replicas[i] ?? 0)!), 0);
  let pg = 0;
  for (const [pid, v] of after.backends) pg += (v ?? 0) - (before.backends.get(pid) ?? 0)!;
  return { replicasMs: Number((node / summaries).toFixed(1)), postgresMs: Number((pg / summaries).toFixed(1)) };
}

/** Writes campaigns with pending memory triggers straight into the database (no worker running). */
async function seed(url: string, campaigns: number, triggers: number): Promise<number> {
  const spec = url.startsWith('sqlite:')
    ? { type: 'sqlite' as const, path: url.slice('sqlite:'.length) }
    : { type: 'postgres' as const, url };
  const ds = createDataSource({ database: spec, entities: ENTITIES, migrations: MIGRATIONS });
  await ds.initialize();
  await runMigrations(ds);
  const db = new Database(ds);
  const projector = new CampaignProjector();
  // As the memory module does: the checkpoint row is created with the campaign (§10), the worker only moves it.
  projector.addProjection(new CheckpointProjection());
  const runner = new CampaignRunner(db, new TypeOrmEventStore(db), projector, new SystemClock());
  const run = (id: string, command: CampaignCommand) => runner.run(id, command, {});
  for (let c = 0; c < campaigns; c++) {
    const id = `w${c}`;
    await run(id, { type: 'CreateCampaign', name: `Campaign ${c}` });
    await run(id, { type: 'PutLocation', locationId: 'a', name: 'The Harbour' });
    await run(id, { type: 'PutLocation', locationId: 'b', name: 'The Lighthouse' });
    await run(id, { type: 'ChangeLocation', toLocationId: 'a' });
    for (let t = 0; t < triggers; t++) {
      const now = new Date().toISOString();
      await run(id, {
        type: 'RecordMessages',
        now,
        messages: [
          { role: 'player', content: `We search the place, round ${t}.` },
          { role: 'dm', content: 'You find a wet map and a brass key.' },
        ],
      });
      await run(id, { type: 'ChangeLocation', toLocationId: t % 2 ? 'a' : 'b' });
    }
  }
  await ds.destroy();
  return campaigns * triggers;
}

/** Memory worker: replicas catch up on seeded triggers against a model that answers in 200 ms. */
async function worker(setup: Setup, mock: MockAnthropic, o: { campaigns: number; triggers: number }) {
  const database = await setup.database();
  const expected = await seed(database.url, o.campaigns, o.triggers);
  // The model holds every answer until all replicas are up, so they all start together.
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  mock.setHandler(async () => {
    await gate;
    return { text: 'The party searched the place and found a wet map and a brass key.', delayMs: MODEL_MS };
  });
  const replicas = await startReplicas(setup.replicas, {
    DATABASE_URL: database.url,
    SUMMARIZER: 'anthropic',
    ANTHROPIC_API_KEY: 'bench-key',
    ANTHROPIC_BASE_URL: mock.baseUrl,
    MEMORY_CONCURRENCY: '4',
    LEASE_POLL_MS: '500',
  });
  try {
    const pgUrl = database.url.startsWith('sqlite:') ? null : database.url;
    const cpuBefore = await cpuSnapshot(replicas, pgUrl);
    const started = Date.now();
    open();
    for (;;) {
      const ready = (await fetch(`${replicas[0].url}/health/ready`).then((r) => r.json())) as {
        replica: { workerLag: { campaigns: number } };
      };
      if (ready.replica.workerLag.campaigns === 0) break;
      if (Date.now() - started > 300_000) throw new Error('worker benchmark did not finish in 5 minutes');
      // Not faster: the probe (an HTTP request and a lag query on replica 1) would take CPU from the work it measures.
      await sleep(100);
    }
    const seconds = (Date.now() - started) / 1000;
    const cpu = cpuPerSummary(cpuBefore, await cpuSnapshot(replicas, pgUrl), expected);
    const shares = await Promise.all(
      replicas.map(
        async (r) =>
          ((await fetch(`${r.url}/health/ready`).then((x) => x.json())) as { replica: { acquisitions: number } })
            .replica.acquisitions,
      ),
    );
    return {
      setup: setup.label,
      replicas: setup.replicas,
      summaries: expected,
      seconds: Number(seconds.toFixed(2)),
      summariesPerSec: Number((expected / seconds).toFixed(1)),
      leasesTakenPerReplica: shares.join('/'),
      cpuMsPerSummary: cpu,
    };
  } finally {
    await stopReplicas(replicas);
    await database.drop();
    mock.reset();
  }
}

/** The benchmark; resolves to its figures (rows, ratios, notes). */
export async function runPgBench(opts: PgBenchOptions): Promise<Record<string, unknown>> {
  let server;
  try {
    server = await startPostgres();
  } catch (err) {
    const reason = `PostgreSQL could not be started (${(err as Error).message}); replica benchmark skipped`;
    process.stdout.write(`${reason}\n`);
    return { skipped: true, notes: [reason] };
  }
  ensureBuilt();
  const mock = await startMockAnthropic();
  const pg = (): Setup['database'] => async () => createTestSchema(server!.url);
  const setups: Setup[] = [
    // Quick mode is a smoke test of the replica runs: the SQLite reference row is left to the full run.
    ...(opts.quick ? [] : [{ label: 'SQLite', replicas: 1, database: sqliteDatabase }]),
    { label: 'PostgreSQL', replicas: 1, database: pg() },
    { label: 'PostgreSQL', replicas: 3, database: pg() },
  ];
  const ingestOptions = opts.quick
    ? { campaigns: 12, connections: 12, seconds: 2 }
    : { campaigns: 50, connections: 48, seconds: 8 };
  const workerOptions = opts.quick ? { campaigns: 12, triggers: 2 } : { campaigns: 60, triggers: 5 };
  try {
    const ingestRows = [];
    const wants = (part: 'ingest' | 'worker') => !opts.only || opts.only.includes(part);
    if (wants('ingest')) for (const s of setups) ingestRows.push(await ingest(s, ingestOptions));
    const workerRows = [];
    if (wants('worker')) for (const s of setups) workerRows.push(await worker(s, mock, workerOptions));
    const ratio = (rows: Array<Record<string, unknown>>, key: string) => {
      const one = rows.find((r) => r.setup === 'PostgreSQL' && r.replicas === 1);
      const three = rows.find((r) => r.setup === 'PostgreSQL' && r.replicas === 3);
      return one && three ? Number((Number(three[key]) / Number(one[key])).toFixed(2)) : null;
    };
    const figures = {
      ingest: ingestRows,
      worker: workerRows,
      ingestRatio3to1: ratio(ingestRows, 'reqPerSec'),
      workerRatio3to1: ratio(workerRows, 'summariesPerSec'),
      notes: [
        `ingest: POST /messages (1 message), ${ingestOptions.connections} connections split over the replicas, ${ingestOptions.seconds} s, local summarizer`,
        `worker: ${workerOptions.campaigns} campaigns × ${workerOptions.triggers} location memories each, model mock ${MODEL_MS} ms, MEMORY_CONCURRENCY 4 per replica`,
        `3 replicas vs 1 on PostgreSQL: ingest ×${ratio(ingestRows, 'reqPerSec') ?? '–'}; memory worker ×${ratio(workerRows, 'summariesPerSec') ?? '–'} (target ≥ 2.5)`,
        'every process (PostgreSQL, replicas, load generator) shares this machine’s cores',
      ],
    };
    return figures;
  } finally {
    await mock.close();
    await server.stop();
  }
}

function print(figures: Record<string, any>): void {
  const lines: string[] = [];
  if (figures.ingest?.length) {
    lines.push('ingest               replicas   req/s   p50 ms   p99 ms   failed');
    for (const r of figures.ingest)
      lines.push(
        `  ${r.setup.padEnd(18)} ${String(r.replicas).padStart(8)} ${String(r.reqPerSec).padStart(7)} ${String(r.p50Ms).padStart(8)} ${String(r.p99Ms).padStart(8)} ${String(r.failed).padStart(8)}`,
      );
  }
  if (figures.worker?.length) {
    lines.push(
      'memory worker        replicas   summaries   seconds   summaries/s   CPU ms/summary (replicas + PostgreSQL)   leases taken',
    );
    for (const r of figures.worker) {
      const cpu = r.cpuMsPerSummary ? `${r.cpuMsPerSummary.replicasMs} + ${r.cpuMsPerSummary.postgresMs}` : '–';
      lines.push(
        `  ${r.setup.padEnd(18)} ${String(r.replicas).padStart(8)} ${String(r.summaries).padStart(11)} ${String(r.seconds).padStart(9)} ${String(r.summariesPerSec).padStart(13)}   ${cpu.padEnd(38)}   ${r.leasesTakenPerReplica}`,
      );
    }
  }
  for (const n of figures.notes ?? []) lines.push(`- ${n}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (require.main === module) {
  const quick = process.argv.includes('--quick');
  const only = process.argv
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',') as PgBenchOptions['only'];
  runPgBench({ quick, only })
    .then((figures) => {
      print(figures);
      const dir = join(projectRoot(), 'bench', 'results');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'pg.json'), `${JSON.stringify(figures, null, 2)}\n`);
    })
    .catch((err) => {
      process.stderr.write(`${(err as Error).stack}\n`);
      process.exit(1);
    });
}
