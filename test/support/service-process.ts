import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

/** The repository root, both from test/support (ts-jest/swc) and from dist/test/support (built). */
export const REPO_ROOT = ((): string => {
  let dir = resolve(__dirname);
  while (!existsSync(join(dir, 'package.json'))) dir = resolve(dir, '..');
  return dir;
})();

export const SERVICE_MAIN = join(REPO_ROOT, 'dist/apps/memory-service/src/main.js');

/** scripts/build.js: plain JavaScript, so it is loaded from the repository both under jest and from dist/. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain JavaScript from the repository
const builder = (): { staleReason(): string | null } => require(join(REPO_ROOT, 'scripts/build.js'));

/**
 * Builds (swc, `node scripts/build.js --if-stale`) when dist/ is missing or older than a source, so tests of
 * the built service work from a fresh checkout. A directory lock keeps parallel jest workers from building twice.
 */
export function ensureBuilt(): void {
  const fresh = () => existsSync(SERVICE_MAIN) && builder().staleReason() === null;
  if (fresh()) return;
  const lock = join(REPO_ROOT, '.build-lock');
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() - started > 180_000)
        throw new Error(`build lock ${lock} held for 3 minutes; remove it if no build is running`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
  }
  try {
    if (!fresh())
      execFileSync(process.execPath, [join(REPO_ROOT, 'scripts/build.js')], { cwd: REPO_ROOT, stdio: 'pipe' });
  } finally {
    rmdirSync(lock);
  }
}

/** A free loopback port (released before the service binds it; restarts reuse it). */
export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
  });
}

export interface ServiceProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
}

export interface ServiceOptions {
  dbPath: string;
  env?: Record<string, string>;
  port?: number;
  /** How long to wait for "listening" (default 30 s). */
  bootTimeoutMs?: number;
}

/** Starts the BUILT service (`node dist/apps/memory-service/src/main.js`) and waits until it listens. */
export async function startServiceProcess(options: ServiceOptions): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: `sqlite:${options.dbPath}`,
    NO_COLOR: '1',
    ...options.env,
  };
  const child = spawn(process.execPath, [SERVICE_MAIN], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    child.once('exit', (code, signal) => res({ code, signal })),
  );
  const deadline = Date.now() + (options.bootTimeoutMs ?? 30_000);
  let done = false;
  void exited.then(() => (done = true));
  while (!/Lorekeeper listening on/.test(out)) {
    if (done) throw new Error(`service exited during boot:\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not start within ${options.bootTimeoutMs ?? 30_000} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    output: () => out,
    exited,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}
