// First: the boot cache speeds up loading every module imported after it (docs/performance.md, Footprint).
import { finishBootCache } from './boot-cache';
import { ConfigError, loadConfig } from '@app/common';
import { createApp } from './bootstrap';
import { installGracefulShutdown } from './graceful-shutdown';
import { checkDatabasePath, checkPort, describeListenError, StartupError } from './startup-checks';

/**
 * Starts the service (`lorekeeper`, `lorekeeper start`, `npm start`); a start that cannot happen says why in one
 * line.
 */
export async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
    checkDatabasePath(config);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    if (err instanceof StartupError) failStart(err.message);
    throw err;
  }
  await checkPort(config.host, config.port).catch((err: unknown) => {
    if (err instanceof StartupError) failStart(err.message);
    throw err;
  });
  exitWithin(SHUTDOWN_DEADLINE_MS);
  const app = await createApp(config);
  installGracefulShutdown(app);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    const reason = describeListenError(err, config.host, config.port);
    if (!reason) throw err;
    await app.close().catch(() => undefined);
    failStart(reason.message);
  }
  // The bound port, not the configured one: PORT=0 picks a free port (tests, chaos harness).
  const port = (app.getHttpServer().address() as { port: number } | null)?.port ?? config.port;
  if (config.bootCache === 'warm') return warmBootCache(app, port);
  // After the first requests, so the code cache also holds what serving compiles; off the boot's critical path.
  setTimeout(finishBootCache, BOOT_CACHE_WRITE_DELAY_MS).unref();
  process.stdout.write(
    `Lorekeeper listening on http://${config.host}:${port} (database ${config.database.type}, summarizer ` +
      `${config.summarizer})\n`,
  );
}

const BOOT_CACHE_WRITE_DELAY_MS = 2_000;

function failStart(reason: string): never {
  process.stderr.write(`Lorekeeper cannot start: ${reason}\n`);
  process.exit(1);
}

/**
 * BOOT_CACHE=warm (what `scripts/build.js` runs after compiling): boot on the given database, answer one
 * /health, write the boot cache and exit, so the first real start after a build is already a cached one.
 */
async function warmBootCache(app: Awaited<ReturnType<typeof createApp>>, port: number): Promise<void> {
  await fetch(`http://127.0.0.1:${port}/health`).then((res) => res.arrayBuffer());
  finishBootCache();
  await app.close();
  process.exit(0);
}

/** DESIGN §9: SIGTERM exits within 10 s, even if a request or the worker does not let go in time. */
const SHUTDOWN_DEADLINE_MS = 9_000;

function exitWithin(ms: number): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      setTimeout(() => {
        process.stderr.write(`shutdown did not finish within ${ms} ms; exiting\n`);
        process.exit(1);
      }, ms).unref();
    });
  }
}

// Run when started as a file (node …/main.js); the CLI (cli.ts) imports it and calls main itself.
if (require.main === module) void main();
