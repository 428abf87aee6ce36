import { execSync, fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { BenchOptions, BenchSuite, Figures } from './support/bench-suite';
import { repoRoot } from './support/paths';
import { renderFigures } from './support/report';
import { SUITES } from './suites';

/**
 * `npm run bench [-- --quick] [-- --only a,b] [-- --profile]`: runs the suites of bench/suites.ts,
 * prints a table per suite and writes the figures to bench/results/<timestamp>.json.
 * Never fails on a number: the exit code is non-zero only when a suite crashed.
 * Each suite runs in a Node process of its own (`--suite <name>`, forked): what one suite leaves in the harness (a
 * heap of hundreds of MB after the LoCoMo and timeline suites, its garbage collector's helper threads, open handles)
 * never runs beside the next one's measurements, and the figures do not depend on the order or on `--only`.
 */
function parseArgs(argv: string[]): BenchOptions & { only: string[] | null; suite: string | null } {
  const only: string[] = [];
  let quick = false;
  let profile = false;
  let suite: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') quick = true;
    else if (a === '--profile') profile = true;
    else if (a === '--suite') suite = argv[++i] ?? null;
    else if (a === '--only') only.push(...(argv[++i] ?? '').split(','));
    else if (a.startsWith('--only=')) only.push(...a.slice('--only='.length).split(','));
    else if (a === '--help' || a === '-h') {
      process.stdout.write(
        `usage: npm run bench -- [--quick] [--only ${SUITES.map((s) => s.name).join(',')}] [--profile]\n`,
      );
      process.exit(0);
    } else throw new Error(`unknown argument ${a} (try --help)`);
  }
  const unknown = only.filter((n) => n && !SUITES.some((s) => s.name === n));
  if (unknown.length)
    throw new Error(`unknown suite(s) ${unknown.join(', ')}; known: ${SUITES.map((s) => s.name).join(', ')}`);
  if (suite !== null && !SUITES.some((s) => s.name === suite)) throw new Error(`unknown suite ${suite}`);
  return { quick, profile, suite, only: only.filter(Boolean).length ? only.filter(Boolean) : null };
}

/** What a suite's process sends back: its figures, or the stack it crashed with. */
type SuiteOutcome = { figures: Figures } | { error: string };

/** Runs one suite in a forked process of its own (see above) and resolves to what it sent, or to a crash. */
function runInChild(suite: BenchSuite, options: BenchOptions): Promise<SuiteOutcome> {
  const args = [
    '--suite',
    suite.name,
    ...(options.quick ? ['--quick'] : []),
    ...(options.profile ? ['--profile'] : []),
  ];
  const child = fork(__filename, args, { stdio: 'inherit' });
  return new Promise((resolve) => {
    let outcome: SuiteOutcome | null = null;
    child.once('message', (m) => (outcome = m as SuiteOutcome));
    child.once('exit', (code, signal) =>
      resolve(outcome ?? { error: `the suite's process exited (${signal ?? `code ${code}`}) without its figures` }),
    );
  });
}

/** `--suite <name>`: the forked side; sends the figures to the parent and exits (a suite may leave handles open). */
async function runAsChild(name: string, options: BenchOptions): Promise<void> {
  const suite = SUITES.find((s) => s.name === name) as BenchSuite;
  let outcome: SuiteOutcome;
  try {
    outcome = { figures: await suite.run(options) };
  } catch (err) {
    outcome = { error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  process.send?.(outcome, () => process.exit(0));
}

function machine(): Record<string, unknown> {
  let commit = 'unknown';
  try {
    commit = execSync('git rev-parse --short HEAD', { cwd: repoRoot(), stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    /* not a git checkout */
  }
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    ramGb: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    commit,
    // Other work on the machine skews absolute numbers; the ratios are taken side by side for that reason.
    loadAverage1m: Math.round(loadavg()[0] * 100) / 100,
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.suite !== null) return runAsChild(args.suite, { quick: args.quick, profile: args.profile });
  const suites = SUITES.filter((s) => !args.only || args.only.includes(s.name));
  const started = new Date();
  const host = machine();
  process.stdout.write(
    `Lorekeeper benchmarks (${args.quick ? 'quick' : 'full'}) — ${host.cpus} × ${host.cpuModel}, ${host.ramGb} GB RAM, node ${host.node}, commit ${host.commit}, load ${host.loadAverage1m}\n`,
  );
  const results: Record<string, { title: string; seconds: number; figures?: Figures; error?: string }> = {};
  let crashed = false;
  for (const suite of suites) {
    process.stdout.write(`\n== ${suite.title} ==\n`);
    const t0 = performance.now();
    const outcome = await runInChild(suite, { quick: args.quick, profile: args.profile });
    const seconds = Math.round((performance.now() - t0) / 100) / 10;
    if ('figures' in outcome) {
      results[suite.name] = { title: suite.title, seconds, figures: outcome.figures };
      process.stdout.write(`${renderFigures(outcome.figures)}\n  (${seconds} s)\n`);
    } else {
      crashed = true;
      results[suite.name] = { title: suite.title, seconds, error: outcome.error };
      process.stdout.write(`  CRASHED after ${seconds} s: ${outcome.error}\n`);
    }
  }
  const totalSeconds = Math.round((Date.now() - started.getTime()) / 100) / 10;
  const dir = join(repoRoot(), 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${started.toISOString().replace(/[:.]/g, '-')}${args.quick ? '-quick' : ''}.json`);
  const loadAtEnd = Math.round(loadavg()[0] * 100) / 100;
  writeFileSync(
    file,
    `${JSON.stringify({ startedAt: started.toISOString(), mode: args.quick ? 'quick' : 'full', totalSeconds, machine: { ...host, loadAverage1mAtEnd: loadAtEnd }, suites: results }, null, 2)}\n`,
  );
  process.stdout.write(
    `\nTotal ${totalSeconds} s (load average ${host.loadAverage1m} at start, ${loadAtEnd} at end). Figures written to ${file}\n`,
  );
  process.exitCode = crashed ? 1 : 0;
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
});
