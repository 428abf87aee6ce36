import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from './replica-process';

export interface PostgresServer {
  url: string;
  stop(): Promise<void>;
}

const ROOT = projectRoot();
// Prints the URL, then holds the cluster open until its stdin closes.
const HOLD = `console.log('TEST_DATABASE_URL=' + process.env.TEST_DATABASE_URL); process.stdin.resume(); process.stdin.on('end', () => process.exit(0));`;

/**
 * A PostgreSQL server for benchmarks: TEST_DATABASE_URL when set, else a throwaway cluster from
 * scripts/with-postgres.sh kept alive until `stop()`. Rejects with the script's output when it fails.
 */
export function startPostgres(): Promise<PostgresServer> {
  const given = process.env.TEST_DATABASE_URL;
  if (given) return Promise.resolve({ url: given, stop: async () => undefined });
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [join(ROOT, 'scripts', 'with-postgres.sh'), process.execPath, '-e', HOLD], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /TEST_DATABASE_URL=(\S+)/.exec(out);
      if (match) {
        child.stdout!.off('data', onData);
        resolve({
          url: match[1],
          stop: async () => {
            child.stdin!.end();
            await exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.once('exit', (code) =>
      reject(new Error(`with-postgres.sh exited with ${code}: ${out.trim().split('\n').slice(-5).join(' | ')}`)),
    );
  });
}
