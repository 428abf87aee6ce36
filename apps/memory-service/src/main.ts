import { ConfigError, loadConfig } from '@app/common';
import { createApp } from './bootstrap';
import { installGracefulShutdown } from './graceful-shutdown';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const app = await createApp(config);
  installGracefulShutdown(app);
  await app.listen({ port: config.port, host: config.host });
  // The bound port, not the configured one: PORT=0 picks a free port (tests, chaos harness).
  const port = (app.getHttpServer().address() as { port: number } | null)?.port ?? config.port;
  process.stdout.write(`Lorekeeper listening on http://${config.host}:${port} (database ${config.database.type}, summarizer ${config.summarizer})\n`);
}

void main();
