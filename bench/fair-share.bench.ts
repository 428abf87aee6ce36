import { ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { connect, Socket } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { BenchOptions, Figures } from './support/bench-suite';
import { runLoad } from './support/load';
import { tempDir } from './support/paths';
import { localServiceEnv, ServerProcess, spawnServer, threadCpuMsOf } from './support/service-process';
import { median, percentile, ratio, round } from './support/stats';

const HEALTH_P99_TARGET = 50;
const HEALTH_MAX_TARGET = 150;
const WRITE_TARGET = 2;
const THROUGHPUT_TARGET = 1.6;
/** Callers of the throughput rounds, each reading contexts back to back. */
const THROUGHPUT_CLIENTS = 8;
const FAIRNESS_TARGET = 3;
const SERVED_TARGET = 99;
const FLOODER = 'flooder-token-0123456789abcdef';
const OTHER = 'other-token-0123456789abcdef';
const PLAYERS = ['aria', 'bo', 'cass', 'dain'];
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
/** A read not answered by then counts as failed (0). */
const CALL_TIMEOUT_MS = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Sizes {
  messages: number;
  stormMs: number;
  storm: number;
  flood: number;
  samples: number;
  idleSockets: number;
  /** Throughput: alternating rounds per service, and each round's length. */
  rounds: number;
  roundMs: number;
  /** Reads each service serves before its rounds. */
  warmMs: number;
}

/** One request on a connection of its own (no pool: every client of the storm is its own caller). */
function call(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  return new Promise<{ status: number; ms: number }>((resolve) => {
    const started = performance.now();
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    const headers = { ...(init.headers ?? {}), ...(body ? { 'content-type': 'application/json' } : {}) };
    const req = httpRequest(url, { method: init.method ?? 'GET', headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.setTimeout(CALL_TIMEOUT_MS, () => req.destroy());
    req.end(body);
  });
}

/** A campaign of `messages` messages, 500 a request, four players in one tavern; returns its version. */
export async function seed(url: string, messages: number): Promise<number> {
  const ok = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${url}/v1/campaigns/storm${path}`, {
      method,
      headers: { ...auth(FLOODER), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (r.status >= 300) throw new Error(`${method} ${path} → ${r.status} ${(await r.text()).slice(0, 200)}`);
    return r.json() as Promise<{ version: number; processedVersion?: number }>;
  };
  const created = await call(`${url}/v1/campaigns`, {
    method: 'POST',
    headers: auth(FLOODER),
    body: { id: 'storm', name: 'Storm' },
  });
  if (created.status !== 201) throw new Error(`create → ${created.status}`);
  await ok('PUT', '/locations/tavern', { name: 'The Rusty Anchor' });
  for (const p of PLAYERS) await ok('PUT', `/players/${p}`, { name: p[0].toUpperCase() + p.slice(1) });
  await ok('POST', '/commands/change-location', { toLocationId: 'tavern' });
  for (let done = 0; done < messages; done += 500) {
    const batch = Array.from({ length: Math.min(500, messages - done) }, (_, i) => ({
      role: i % 5 === 0 ? 'dm' : 'player',
      ...(i % 5 === 0 ? {} : { speaker: PLAYERS[i % 4][0].toUpperCase() + PLAYERS[i % 4].slice(1) }),
      content: `Line ${done + i}: the iron ore crates go down to the docks; Mira counts ${i % 90} silver and frowns.`,
    }));
    await ok('POST', '/messages', { messages: batch });
    await ok('POST', '/commands/end-round');
  }
  const { version } = await ok('GET', '');
  // The memory worker summarizes the whole campaign first: measured, it would be load of its own.
  for (let tries = 0; tries < 10; tries++) {
    const c = (await ok('GET', `/context?minVersion=${version}&waitMs=30000`)) as { processedVersion?: number };
    if ((c.processedVersion ?? 0) >= version) break;
  }
  return version;
}

const contextPath = (i: number) =>
  `/v1/campaigns/storm/context?agent=player&viewer=${PLAYERS[i % PLAYERS.length]}&budget=4000`;

/**
 * A request repeated `gapMs` (20) after each answer by a process of its own, which records each answer's latency:
 * DESIGN §13's "blocks others" is measured from another process, never from the loaded service's loop, nor from this
 * one's, which runs the storm's callers. `{i}` in the body is the request's number; several URLs are taken in turn.
 * `stop()` returns the latencies once there are `min` of them.
 */
function startPoller(
  url: string | string[],
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    okOnly?: boolean;
    gapMs?: number;
    /** Stop by itself after this many latencies. */
    count?: number;
    /** `stop()` waits for at least this many. */
    min?: number;
  } = {},
): { result: Promise<number[]>; stop(): Promise<number[]> } {
  const source = `
    const http = require('node:http'); const samples = []; let on = true; let i = 0;
    const init = ${JSON.stringify(init)}; const urls = ${JSON.stringify([url].flat())};
    const headers = { ...init.headers, ...(init.body ? { 'content-type': 'application/json' } : {}) };
    let asked = false;
    const done = () => { on = false; process.send(samples, () => process.exit(0)); };
    const enough = () => samples.length >= (asked ? init.min ?? 0 : init.count ?? Infinity);
    const next = () => { if (!on) return; if (enough()) done(); else setTimeout(probe, init.gapMs ?? 20); };
    const probe = () => { const t = performance.now(); const n = i++;
      const req = http.request(urls[n % urls.length], { method: init.method || 'GET', headers, agent: false }, (res) => {
        res.resume();
        res.on('end', () => { if (!init.okOnly || res.statusCode < 300) samples.push(performance.now() - t); next(); });
      });
      req.on('error', () => { if (!init.okOnly) samples.push(30000); next(); });
      req.end(init.body ? init.body.replace('{i}', String(n)) : undefined); };
    probe();
    process.on('message', () => { asked = true; if (on && enough()) done(); });`;
  const child: ChildProcess = spawn(process.execPath, ['-e', source], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let received = false;
  const result = new Promise<number[]>((resolve) =>
    child.once('message', (samples) => {
      received = true;
      resolve(samples as number[]);
    }),
  );
  return {
    result,
    stop: () => {
      if (!received && child.connected) child.send('stop');
      return result;
    },
  };
}

/** `/health` every 20 ms from a process of its own. */
const startProber = (url: string) => startPoller(`${url}/health`);

/** Single-message writes one after the other (20 ms apart) from a process of its own; their latencies when 2xx. */
const startWriter = (url: string) =>
  startPoller(`${url}/v1/campaigns/storm/messages`, {
    method: 'POST',
    headers: auth(OTHER),
    body: JSON.stringify({ messages: [{ role: 'dm', content: 'A gull lands on crate {i}.' }] }),
    okOnly: true,
  });

/** `clients` callers each reading contexts back to back until `until`; the reads completed and their statuses. */
export async function storm(url: string, clients: number, until: () => boolean, token = FLOODER) {
  let ok = 0;
  let busy = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      while (!until()) {
        const r = await call(`${url}${contextPath(c)}`, { headers: auth(token) });
        if (r.status === 200) ok++;
        else if (r.status === 503) busy++;
        else failed++;
      }
    }),
  );
  return { ok, busy, failed };
}

/** Read storm: /health and single writes while `storm` player contexts run, against the same with nothing running. */
async function readStorm(service: ServerProcess, s: Sizes): Promise<Figures> {
  const [idleProbe, idleWriter] = [startProber(service.url), startWriter(service.url)];
  await sleep(s.stormMs);
  const [idleWrites, idleHealth] = [await idleWriter.stop(), await idleProbe.stop()];
  const stop = performance.now() + s.stormMs;
  const [probe, writer] = [startProber(service.url), startWriter(service.url)];
  const reads = await storm(service.url, s.storm, () => performance.now() > stop);
  const [stormWrites, health] = [await writer.stop(), await probe.stop()];
  return {
    [`/health p99 during the storm, ms (target ≤ ${HEALTH_P99_TARGET})`]: round(percentile(health, 99), 1),
    [`/health max during the storm, ms (target ≤ ${HEALTH_MAX_TARGET})`]: round(Math.max(...health), 1),
    [`write p99 storm / idle (target ≤ ${WRITE_TARGET})`]: ratio(
      percentile(stormWrites, 99),
      percentile(idleWrites, 99),
    ),
    stormRows: [
      {
        phase: 'idle',
        '/health p50': round(percentile(idleHealth, 50), 1),
        '/health p99': round(percentile(idleHealth, 99), 1),
        'write p99 ms': round(percentile(idleWrites, 99), 1),
        contexts: 0,
        'contexts failed': 0,
      },
      {
        phase: `${s.storm} player contexts`,
        '/health p50': round(percentile(health, 50), 1),
        '/health p99': round(percentile(health, 99), 1),
        'write p99 ms': round(percentile(stormWrites, 99), 1),
        contexts: reads.ok,
        'contexts failed': reads.failed + reads.busy,
      },
    ],
  };
}

/** CPU a service's threads used over a span, in ms: its main thread, its read workers, everything else. */
interface ThreadCpu {
  main: number;
  workers: number;
  /** V8's helper threads (concurrent GC marking and sweeping, compilers), libuv's pool, the WAL checkpointer. */
  others: number;
}

/**
 * What each kind of thread used since `before` (per-thread CPU from /proc): the read workers are the `workers` busiest
 * threads besides the main one (Node names every thread "node"; under a read load they use several times what any
 * helper does).
 */
function cpuSince(pid: number, before: Map<number, number>, workers: number): ThreadCpu {
  let main = 0;
  const rest: number[] = [];
  for (const [tid, ms] of threadCpuMsOf(pid)) {
    const used = ms - (before.get(tid) ?? 0);
    if (tid === pid) main = used;
    else rest.push(used);
  }
  rest.sort((a, b) => b - a);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return { main, workers: sum(rest.slice(0, workers)), others: sum(rest.slice(workers)) };
}

/** One service of the throughput comparison and what its rounds measured. */
interface Side {
  workers: number;
  service: ServerProcess;
  rates: number[];
  contexts: number;
  /** Reads of the rounds not answered 200 (503 BUSY, errors, timeouts). */
  failed: number;
  cpu: ThreadCpu;
  /** This process's own CPU (the callers' HTTP work), in ms. */
  clientMs: number;
}

/**
 * `clients` callers reading contexts for `ms`, each on a connection it keeps (autocannon, as the ingest bench loads its
 * servers): the callers share the cores with the service, and a client that opens a connection per read (the storm's,
 * which is each caller's own) spent ≈ 0.6 ms of CPU per context there, autocannon ≈ 0.2.
 */
async function throughputRound(side: Side, clients: number, ms: number): Promise<void> {
  const before = threadCpuMsOf(side.service.pid);
  const client = process.cpuUsage();
  const { ok, failed, rps } = await readLoad(side.service.url, clients, ms);
  side.rates.push(rps);
  side.contexts += ok;
  side.failed += failed;
  const used = cpuSince(side.service.pid, before, side.workers);
  side.cpu.main += used.main;
  side.cpu.workers += used.workers;
  side.cpu.others += used.others;
  const c = process.cpuUsage(client);
  side.clientMs += (c.user + c.system) / 1000;
}

/** Player contexts (the four players in turn) on `clients` kept connections for `ms`. */
const readLoad = (url: string, clients: number, ms: number) =>
  runLoad({
    url,
    headers: auth(FLOODER),
    paths: PLAYERS.map((_, i) => contextPath(i)),
    connections: clients,
    durationSec: ms / 1000,
  });

/**
 * Context throughput of two services on the same (seeded, now only read) database, in alternating rounds so that a
 * change of the machine's load hits both alike: A B, B A, A B, …; each side's figure is the median of its rounds.
 */
async function throughputRounds(s: Sizes, sides: Side[], clients: number): Promise<void> {
  // The first reads of each thread load its tokenizer, and V8 optimizes the read path in each thread for thousands of
  // reads (hundreds of TurboFan jobs, on helper threads that share the cores): a long-running service is measured.
  for (const side of sides) await readLoad(side.service.url, clients, s.warmMs);
  const { rounds, roundMs } = s;
  for (let r = 0; r < rounds; r++)
    for (const side of r % 2 === 0 ? sides : [...sides].reverse()) await throughputRound(side, clients, roundMs);
}

const perContext = (ms: number, side: Side) => round(ms / Math.max(1, side.contexts), 2);

/**
 * The contexts/s a side's CPU per context allows on this machine's cores: its workers use at most a core each, and
 * all of its threads (and the callers) share the cores. A ceiling the load cannot move; a side reaches it only when
 * its threads never wait for each other.
 */
function cpuBound(side: Side): number {
  const ms = (x: number) => x / Math.max(1, side.contexts);
  const all = ms(side.cpu.main + side.cpu.workers + side.cpu.others + side.clientMs);
  return 1000 * Math.min(side.workers / ms(side.cpu.workers), availableParallelism() / all);
}

function throughputFigures(two: Side, one: Side): Figures {
  const rate = (side: Side) => median(side.rates);
  return {
    [`contexts/s READ_WORKERS=2 ÷ 1 (target ≥ ${THROUGHPUT_TARGET})`]: ratio(rate(two), rate(one)),
    [`the same ÷ as bounded by CPU per context on ${availableParallelism()} cores`]: ratio(
      cpuBound(two),
      cpuBound(one),
    ),
    throughputRows: [two, one].map((side) => ({
      READ_WORKERS: side.workers,
      'contexts/s (median)': round(rate(side), 1),
      rounds: side.rates.map((r) => round(r, 1)).join(' / '),
      failed: side.failed,
      'CPU-bound contexts/s': round(cpuBound(side), 1),
      'main thread ms/context': perContext(side.cpu.main, side),
      'read workers ms/context': perContext(side.cpu.workers, side),
      'other threads ms/context': perContext(side.cpu.others, side),
      'bench callers ms/context': perContext(side.clientMs, side),
    })),
  };
}

/** Another key's single reads, idle and while the flooder keeps `flood` reads queued. */
async function fairness(service: ServerProcess, s: Sizes): Promise<Figures> {
  // Bounded in time too: without fair share (a "before" build) each read waits for the whole flood.
  // From a process of its own (this one runs the flood's callers), back to back, until `samples` reads or the bound
  // (then at least 3).
  const single = async () => {
    const urls = PLAYERS.map((_, i) => `${service.url}${contextPath(i)}`);
    const reader = startPoller(urls, { headers: auth(OTHER), gapMs: 0, count: s.samples, min: 3 });
    await Promise.race([reader.result, sleep(s.stormMs * 2)]);
    return reader.stop();
  };
  const idle = await single();
  let done = false;
  const flood = storm(service.url, s.flood, () => done);
  await sleep(300);
  const loaded = await single();
  done = true;
  await flood;
  return {
    [`other key's context p99 with ${s.flood} queued / idle (target ≤ ${FAIRNESS_TARGET})`]: ratio(
      percentile(loaded, 99),
      percentile(idle, 99),
    ),
    fairnessRows: [
      { phase: 'idle', 'p50 ms': round(percentile(idle, 50), 1), 'p99 ms': round(percentile(idle, 99), 1) },
      {
        phase: `${s.flood} reads of another key queued`,
        'p50 ms': round(percentile(loaded, 50), 1),
        'p99 ms': round(percentile(loaded, 99), 1),
      },
    ],
  };
}

/** `count` sockets from 127.0.0.1 that never send a byte, then other addresses' requests: the share answered 200. */
async function idleSockets(service: ServerProcess, count: number): Promise<Figures> {
  const { port } = new URL(service.url);
  const opened = await Promise.allSettled(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const sock = connect({ port: Number(port), host: '127.0.0.1', localAddress: '127.0.0.1' }, () =>
            resolve(sock),
          );
          sock.on('error', reject);
        }),
    ),
  );
  const sockets = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  for (const sock of sockets) sock.on('error', () => undefined);
  const statuses: number[] = [];
  const until = performance.now() + 60_000;
  for (let i = 0; i < 100 && (i < 10 || performance.now() < until); i++) {
    const path = i % 2 === 0 ? '/health' : contextPath(i);
    const status = await new Promise<number>((resolve) => {
      const req = httpRequest(
        `${service.url}${path}`,
        { headers: auth(OTHER), localAddress: `127.0.0.${2 + (i % 5)}`, agent: false },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', () => resolve(0));
      // A request not answered within 5 s counts as not served (a client would have given up).
      req.setTimeout(5_000, () => req.destroy());
      req.end();
    });
    statuses.push(status);
  }
  const held = sockets.filter((x) => !x.destroyed).length;
  for (const sock of sockets) sock.destroy();
  return {
    [`other clients' requests served with ${count} idle sockets open from one address, % (target ≥ ${SERVED_TARGET})`]:
      round((100 * statuses.filter((x) => x === 200).length) / statuses.length, 1),
    'idle sockets the service still held after the requests': held,
  };
}

/**
 * Fair share (DESIGN §13), on the built service (a child process): a storm of player contexts of a 5,000-message
 * campaign against /health (probed from a third process) and single writes; context throughput with 2 read workers
 * ÷ 1; another key's reads while one key keeps reads queued; other clients while one address holds 2,000 idle sockets.
 */
export async function runFairShareBench(options: BenchOptions): Promise<Figures> {
  const s: Sizes = options.quick
    ? {
        messages: 1000,
        stormMs: 2000,
        storm: 20,
        flood: 60,
        samples: 15,
        idleSockets: 2000,
        rounds: 3,
        roundMs: 1000,
        warmMs: 1000,
      }
    : {
        messages: 5000,
        stormMs: 8000,
        storm: 50,
        flood: 200,
        samples: 200,
        idleSockets: 2000,
        rounds: 5,
        roundMs: 2000,
        warmMs: 6000,
      };
  const tmp = tempDir('fair-share');
  const dbPath = join(tmp.path, 'fair.db');
  // BENCH_SERVICE_ENTRY: another build's main.js (a "before" of this section on the same machine).
  const entry = process.env.BENCH_SERVICE_ENTRY || undefined;
  const env = (workers: number) =>
    localServiceEnv(dbPath, { READ_WORKERS: String(workers), LOREKEEPER_API_KEYS: `${FLOODER},${OTHER}` });
  try {
    const service = await spawnServer({ entry, dir: tmp.path, env: env(2), timeoutMs: 120_000 });
    const figures: Figures = {};
    try {
      await seed(service.url, s.messages);
      Object.assign(figures, await readStorm(service, s));
      Object.assign(figures, await fairness(service, s));
      Object.assign(figures, await idleSockets(service, s.idleSockets));
      // The same database, only read from here on, served by a second service with one read worker.
      const single = await spawnServer({ entry, dir: tmp.path, env: env(1), timeoutMs: 120_000 });
      try {
        const side = (workers: number, svc: ServerProcess): Side => ({
          workers,
          service: svc,
          rates: [],
          contexts: 0,
          failed: 0,
          cpu: { main: 0, workers: 0, others: 0 },
          clientMs: 0,
        });
        const [two, one] = [side(2, service), side(1, single)];
        await throughputRounds(s, [two, one], THROUGHPUT_CLIENTS);
        Object.assign(figures, throughputFigures(two, one));
      } finally {
        await single.stop();
      }
    } finally {
      await service.stop();
    }
    figures.notes = [
      `${s.messages} messages in one tavern, 4 players; player contexts at budget=4000; ${s.storm} concurrent callers in the storm, each on a connection of its own.`,
      '/health is polled every 20 ms by a separate process; writes are single-message POSTs one after the other (20 ms apart) from another.',
      `Throughput: both services up on the same database, warmed by ${s.warmMs} ms of reads each, then ${s.rounds} alternating rounds of ${s.roundMs} ms each with ${THROUGHPUT_CLIENTS} callers on kept connections (autocannon), the median round per service; CPU per context from /proc/<pid>/task (read workers: the busiest threads; "other": V8's GC and compiler helpers, libuv), bench callers: this process.`,
      'The machine is shared: absolute numbers and the throughput ratio move with what else runs (see the load average); CPU ms per context move much less.',
    ];
    return figures;
  } finally {
    tmp.cleanup();
  }
}
