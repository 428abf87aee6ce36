import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The repository root (the folder with package.json), whether running from bench/ or dist/bench/. */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${__dirname}`);
    dir = up;
  }
  return dir;
}

/** The built service entry point (`npm run build` output). */
export const serviceEntry = (): string => join(repoRoot(), 'dist/apps/memory-service/src/main.js');

/** The built raw Fastify + better-sqlite3 baseline server. */
export const baselineEntry = (): string => join(repoRoot(), 'dist/bench/baseline/raw-ingest-server.js');

/** A fresh temp folder for one benchmark's databases and logs; BENCH_KEEP=1 keeps it. */
export function tempDir(label: string): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), `lorekeeper-bench-${label}-`));
  return { path, cleanup: () => (process.env.BENCH_KEEP ? undefined : rmSync(path, { recursive: true, force: true })) };
}
