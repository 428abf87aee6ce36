import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

/** The repository root, from the sources (test/support) or the build (dist/test/support). */
export function projectRoot(from = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

const ROOT = projectRoot();
const MAIN = join(ROOT, 'dist', 'apps', 'memory-service', 'src', 'main.js');

/** Replicas run the built service: the same build-when-stale as the single-service tests. */
export { ensureBuilt } from './service-process';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface ReplicaProcess {
  id: string;
  url: string;
  child: ChildProcess;
  /** Resolves when the process has exited: its code or signal and when (Date.now()). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  /** The last lines it printed (for failure messages). */
  log(lines?: number): string;
  kill(signal: NodeJS.Signals): void;
}

/** Starts `node dist/…/main.js` on a free loopback port and waits until /health answers. */
export async function startReplica(
  id: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<ReplicaProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), REPLICA_ID: id, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    if (lines.length > 2000) lines.splice(0, lines.length - 2000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const url = `http://127.0.0.1:${port}`;
  const replica: ReplicaProcess = {
    id,
    url,
    child,
    exited,
    log: (n = 40) => lines.slice(-n).join('\n'),
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
  const deadline = Date.now() + 60_000;
  let early: unknown;
  void exited.then((e) => (early = e));
  for (;;) {
    if (early) throw new Error(`replica ${id} exited while booting: ${JSON.stringify(early)}\n${replica.log()}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) return replica;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      replica.kill('SIGKILL');
      throw new Error(`replica ${id} did not become healthy\n${replica.log()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
