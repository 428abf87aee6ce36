import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BenchOptions, Figures } from './support/bench-suite';
import { monotonicUs, summarizeProfileDir } from './support/cpu-profile';
import { HttpClient } from './support/http-client';
import { LoadResult, runLoad } from './support/load';
import { baselineEntry, tempDir } from './support/paths';
import { localServiceEnv, ServerProcess, spawnServer } from './support/service-process';
import { median, ratio, round } from './support/stats';

const CAMPAIGN = 'ingest';
const TARGET = 0.5;

const message = (i: number) => ({
  role: i % 3 === 0 ? 'dm' : 'player',
  speaker: i % 3 === 0 ? 'Narrator' : 'Aria',
  content: `Aria slides ${i % 50} gold across the bar and asks Brom about the old mine; he lowers his voice and warns her that the Ashen Road is watched at night.`,
});

const WORKLOADS = [
  { name: '1 message', body: { messages: [message(1)] }, perRequest: 1, connections: 10 },
  {
    name: '50-message batch',
    body: { messages: Array.from({ length: 50 }, (_, i) => message(i)) },
    perRequest: 50,
    connections: 4,
  },
];

/** The service's single campaign: a location to be at, so messages get their default location. */
async function prepareCampaign(url: string): Promise<void> {
  const http = new HttpClient(url);
  await http.post('/v1/campaigns', { id: CAMPAIGN, name: 'Ingest bench' });
  await http.put(`/v1/campaigns/${CAMPAIGN}/locations/tavern`, { name: 'The Rusty Anchor' });
  await http.post(`/v1/campaigns/${CAMPAIGN}/commands/change-location`, { toLocationId: 'tavern' });
}

const messagesUrl = (server: ServerProcess) => `${server.url}/v1/campaigns/${CAMPAIGN}/messages`;

type Measured = LoadResult & { cpuMsPerRequest: number };

/** A load run plus the server's own CPU time per successful request. */
async function measured(server: ServerProcess, spec: Parameters<typeof runLoad>[0]): Promise<Measured> {
  const before = server.cpuMs();
  const result = await runLoad(spec);
  return { ...result, cpuMsPerRequest: (server.cpuMs() - before) / Math.max(1, result.ok) };
}

/** §1 Ingest: POST /messages through the built service vs a raw Fastify + better-sqlite3 insert, same run. */
export async function runIngestBench(options: BenchOptions): Promise<Figures> {
  // Short alternating rounds: on a shared, noisy machine a load burst then hits both sides alike.
  const durationSec = options.quick ? 1 : 2;
  const rounds = options.quick ? 2 : 6;
  const tmp = tempDir('ingest');
  const servers: ServerProcess[] = [];
  try {
    const service = await spawnServer({ dir: tmp.path, env: localServiceEnv(join(tmp.path, 'lorekeeper.db')) });
    servers.push(service);
    const raw = await spawnServer({
      dir: tmp.path,
      entry: baselineEntry(),
      env: { DB_PATH: join(tmp.path, 'raw.db') },
    });
    servers.push(raw);
    await prepareCampaign(service.url);

    const rows: Record<string, unknown>[] = [];
    const summary: Record<string, { service: Measured[]; raw: Measured[] }> = {};
    for (const w of WORKLOADS) {
      const spec = (s: ServerProcess, sec: number) => ({
        url: messagesUrl(s),
        method: 'POST' as const,
        body: w.body,
        connections: w.connections,
        durationSec: sec,
      });
      const warmSec = options.quick ? 1 : 3; // JIT and SQLite page cache: the first second costs 2× the CPU
      await runLoad(spec(service, warmSec));
      await runLoad(spec(raw, warmSec));
      const runs = { service: [] as Measured[], raw: [] as Measured[] };
      for (let r = 0; r < rounds; r++) {
        runs.service.push(await measured(service, spec(service, durationSec)));
        runs.raw.push(await measured(raw, spec(raw, durationSec)));
      }
      summary[w.name] = runs;
      for (const [label, list] of [
        ['lorekeeper', runs.service],
        ['raw fastify+sqlite', runs.raw],
      ] as const) {
        const rps = median(list.map((x) => x.rps));
        rows.push({
          workload: w.name,
          server: label,
          'req/s': round(rps),
          'msg/s': round(rps * w.perRequest),
          'p50 ms': round(median(list.map((x) => x.p50Ms))),
          'p99 ms': round(median(list.map((x) => x.p99Ms))),
          'server CPU ms/msg': round(median(list.map((x) => x.cpuMsPerRequest)) / w.perRequest, 3),
          failed: list.reduce((n, x) => n + x.failed, 0),
        });
      }
    }
    const rps = (w: string, side: 'service' | 'raw') => median(summary[w][side].map((x) => x.rps));
    const p99 = (w: string, side: 'service' | 'raw') => median(summary[w][side].map((x) => x.p99Ms));
    const cpu = (w: string, side: 'service' | 'raw') => median(summary[w][side].map((x) => x.cpuMsPerRequest));
    const singleRatio = ratio(rps('1 message', 'service'), rps('1 message', 'raw'));
    const figures: Figures = {
      [`1-message req/s ratio lorekeeper/raw (target ≥ ${TARGET})`]: singleRatio,
      '1-message p99 lorekeeper/raw': ratio(p99('1 message', 'service'), p99('1 message', 'raw')),
      '1-message CPU efficiency raw/lorekeeper (CPU per message)': ratio(
        cpu('1 message', 'raw'),
        cpu('1 message', 'service'),
      ),
      '50-message batch msg/s ratio lorekeeper/raw': ratio(
        rps('50-message batch', 'service'),
        rps('50-message batch', 'raw'),
      ),
      '50-message batch CPU efficiency raw/lorekeeper': ratio(
        cpu('50-message batch', 'raw'),
        cpu('50-message batch', 'service'),
      ),
      'lorekeeper batch msg/s': round(rps('50-message batch', 'service') * 50),
      runs: rows,
      notes: [
        `autocannon in the bench process; both servers are child processes on SQLite files (WAL, synchronous=NORMAL); ${rounds} alternating round(s) of ${durationSec} s, medians`,
        'raw = bench/baseline/raw-ingest-server.ts: Fastify + one prepared INSERT per message into the same messages table, nothing else',
        'lorekeeper = validation, idempotency check, state load, decide, event append, projections, and the memory worker advancing its checkpoint in the same process',
        'server CPU = user+system time of the server process (/proc/<pid>/stat) during the run ÷ messages: less sensitive to other load on the machine than req/s',
      ],
    };
    for (const s of servers.splice(0)) await s.stop();
    if (options.profile || (!options.quick && singleRatio < TARGET))
      figures.profile = await profileWorkload(tmp.path, 5, WORKLOADS[0]);
    if (options.profile) figures['50-message batch profile'] = await profileWorkload(tmp.path, 5, WORKLOADS[1]);
    return figures;
  } finally {
    for (const s of servers) await s.stop();
    tmp.cleanup();
  }
}

/** Re-runs a workload against a service under `node --cpu-prof` and says where the time went. */
async function profileWorkload(
  dir: string,
  durationSec: number,
  workload: (typeof WORKLOADS)[number],
): Promise<Figures> {
  const profDir = join(dir, `profile-${workload.name.replace(/\W+/g, '-')}`);
  mkdirSync(profDir, { recursive: true });
  const service = await spawnServer({ dir, env: localServiceEnv(join(profDir, 'profiled.db')), cpuProfDir: profDir });
  let window;
  try {
    await prepareCampaign(service.url);
    const fromUs = monotonicUs();
    await runLoad({ url: messagesUrl(service), method: 'POST', body: workload.body, connections: 10, durationSec });
    window = { fromUs, toUs: monotonicUs() };
  } finally {
    await service.stop();
  }
  const p = summarizeProfileDir(profDir, 15, window); // boot excluded: only the load's samples
  if (!p) return { error: 'no .cpuprofile written' };
  return {
    'sampled ms (not idle)': p.totalMs,
    'self time by area': p.selfByArea,
    'inclusive time by area': p.inclusiveByArea,
    'top functions (self)': p.topFunctions,
  };
}
