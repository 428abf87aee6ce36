/**
 * `npm run fuzz`: property-based hostile-input fuzzing of every route (test/support/fuzz/route-table.ts)
 * against the BUILT service on a temp SQLite file, with API keys on. Prints the case count and the
 * status histogram; exits 1 on any 5xx, any 4xx that is not problem+json with a code, or any
 * rejected request that moved the campaign version.
 *
 *   npm run fuzz -- --cases 10000 --seed 42
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatHistogram, runFuzz } from '../test/support/fuzz/fuzzer';
import { startServiceProcess } from '../test/support/service-process';

const TOKEN = 'fuzz-token-0123456789abcdef';
/** A key bound to the seeded player: its writes must be 403 and its reads filtered, never a 5xx. */
const VIEWER_TOKEN = 'fuzz-viewer-token-0123456789abcdef';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} needs a positive integer`);
  return n;
}

async function main(): Promise<number> {
  const cases = flag('cases', 10_000);
  const seed = flag('seed', Date.now() % 2_147_483_647);
  const dir = mkdtempSync(join(tmpdir(), 'lorekeeper-fuzz-'));
  const svc = await startServiceProcess({
    dbPath: join(dir, 'fuzz.db'),
    env: { LOREKEEPER_API_KEYS: `${TOKEN}, ${VIEWER_TOKEN}=*@player:aria` },
  });
  const started = Date.now();
  try {
    const report = await runFuzz({
      baseUrl: svc.url,
      cases,
      seed,
      token: TOKEN,
      viewerToken: VIEWER_TOKEN,
      onProgress: (n) => process.stdout.write(`  ${n} cases…\n`),
    });
    // The service logs pino JSON (error = level 50, fatal = 60); `ERROR` covers pretty-printed logs.
    const errors = svc
      .output()
      .split('\n')
      .filter((l) => /"level":(50|60)\b|\bERROR\b/.test(l));
    process.stdout.write(
      [
        '',
        `cases ${report.cases}, failures ${report.failures.length}, 5xx ${Object.entries(report.histogram)
          .filter(([s]) => Number(s) >= 500)
          .reduce((n, [, c]) => n + c, 0)}, seed ${report.seed}, ${((Date.now() - started) / 1000).toFixed(1)} s`,
        'status histogram:',
        formatHistogram(report.histogram),
        `mutations: ${Object.entries(report.byMutation)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([m, n]) => `${m} ${n}`)
          .join(', ')}`,
        `service ERROR log lines: ${errors.length}`,
        '',
      ].join('\n'),
    );
    for (const f of report.failures.slice(0, 10)) process.stdout.write(`FAIL ${JSON.stringify(f)}\n`);
    for (const e of errors.slice(0, 5)) process.stdout.write(`ERROR ${e.slice(0, 300)}\n`);
    return report.failures.length || errors.length ? 1 : 0;
  } finally {
    svc.kill('SIGTERM');
    await svc.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`fuzz failed: ${(err as Error)?.stack ?? err}\n`);
    process.exit(2);
  },
);
