import { ConfigError, loadConfig } from '@app/common';
import { createApp } from './bootstrap';

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
  await app.listen({ port: config.port, host: config.host });
  process.stdout.write(`Lorekeeper listening on http://${config.host}:${config.port} (database ${config.database.type}, summarizer ${config.summarizer})\n`);
}

void main();
