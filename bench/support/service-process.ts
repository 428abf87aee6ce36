import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { monotonicUs } from './cpu-profile';
import { serviceEntry } from './paths';

/** A server running as a child process (the built service or the raw baseline). */
export interface ServerProcess {
  url: string;
  pid: number;
  /** Spawn → first 200 from the health path, in ms. */
  startMs: number;
  /** Spawn and healthy on the monotonic clock in µs, to cut a --cpu-prof profile to the boot. */
  bootWindow: { fromUs: number; toUs: number };
  logPath: string;
  /** Resident set size now (VmRSS), in MB. */
  rssMb(): number;
  /** CPU time used so far (user + system), in ms. */
  cpuMs(): number;
  /** Null while running, else how it ended (`code 0`, `signal SIGKILL`). */
  exitStatus(): string | null;
  /** SIGTERM, wait for the exit (a --cpu-prof profile is written then), SIGKILL after 15 s. */
  stop(): Promise<void>;
}

export interface SpawnOptions {
  /** Script to run with node (default: the built service). */
  entry?: string;
  env?: Record<string, string>;
  /** Folder for the log file (and the CPU profile when `cpuProfDir` is set). */
  dir: string;
  cpuProfDir?: string;
  healthPath?: string;
  /** Keep the caller's ANTHROPIC_* variables (LoCoMo against a real model). */
  keepAnthropicEnv?: boolean;
  timeoutMs?: number;
}

/** A free loopback port (tiny race between close and the child's listen; fine on a bench machine). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** User + system CPU of a process from /proc/<pid>/stat (Linux, 100 ticks/s), in ms; NaN elsewhere. */
export function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime: fields 14 and 15 of the full line
  } catch {
    return NaN;
  }
}

/** CPU time (user + system) of each thread of a process from /proc/<pid>/task/<tid>/stat, in ms by tid (Linux). */
export function threadCpuMsOf(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      /* the thread ended */
    }
  }
  return out;
}

/** Reads VmRSS of a process from /proc (Linux), in MB; NaN elsewhere. */
export function rssMbOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Spawns a server on a free loopback port and waits until its health path answers 200. */
export async function spawnServer(options: SpawnOptions): Promise<ServerProcess> {
  const port = await freePort();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (!options.keepAnthropicEnv && (k.startsWith('ANTHROPIC_') || k === 'SUMMARIZER')) continue;
    env[k] = v;
  }
  Object.assign(env, { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }, options.env ?? {});
  const logPath = join(options.dir, `server-${port}.log`);
  const log = openSync(logPath, 'a');
  const args = [
    ...(options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : []),
    options.entry ?? serviceEntry(),
  ];
  const started = performance.now();
  const spawnedUs = monotonicUs();
  const child: ChildProcess = spawn(process.execPath, args, { env, stdio: ['ignore', log, log] });
  closeSync(log);
  let dead: string | null = null;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      dead = signal ? `signal ${signal}` : `code ${code}`;
      resolve();
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (dead) throw new Error(`server exited during start (${dead}); log: ${logPath}\n${tail(logPath)}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server not healthy after ${options.timeoutMs ?? 30_000} ms; log: ${logPath}\n${tail(logPath)}`);
    }
    try {
      const res = await fetch(`${url}${options.healthPath ?? '/health'}`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      /* not listening yet */
    }
    await sleep(10);
  }
  const startMs = performance.now() - started;
  return {
    url,
    pid: child.pid!,
    startMs,
    bootWindow: { fromUs: spawnedUs, toUs: monotonicUs() },
    logPath,
    rssMb: () => rssMbOf(child.pid!),
    cpuMs: () => cpuMsOf(child.pid!),
    exitStatus: () => dead,
    stop: async () => {
      if (dead) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function tail(path: string): string {
  if (!existsSync(path)) return '';
  return readFileSync(path, 'utf8').split('\n').slice(-15).join('\n');
}

/** Environment for the service on a SQLite file with the offline summarizer. */
export const localServiceEnv = (dbPath: string, extra: Record<string, string> = {}): Record<string, string> => ({
  DATABASE_URL: `sqlite:${dbPath}`,
  SUMMARIZER: 'local',
  ...extra,
});

/** Environment for the service with the real Anthropic adapter pointed at a local mock. */
export const mockedAnthropicEnv = (
  dbPath: string,
  mockUrl: string,
  extra: Record<string, string> = {},
): Record<string, string> => ({
  DATABASE_URL: `sqlite:${dbPath}`,
  SUMMARIZER: 'anthropic',
  ANTHROPIC_API_KEY: 'test-key',
  ANTHROPIC_BASE_URL: mockUrl,
  ...extra,
});
