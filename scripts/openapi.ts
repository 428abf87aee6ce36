/**
 * `npm run lint:openapi` (and CI): writes the OpenAPI document the service serves at /docs/openapi.json to a
 * file without listening on a port (an in-memory SQLite database), for `redocly lint` and client generators.
 *   node dist/scripts/openapi.js [out.json]   (default: dist/openapi.json)
 */
import { loadConfig } from '@app/common';
import { writeFileSync } from 'node:fs';
import { createApp } from '../apps/memory-service/src/bootstrap';
import { buildOpenApi } from '../apps/memory-service/src/http/openapi';

async function main(): Promise<void> {
  const out = process.argv[2] ?? 'dist/openapi.json';
  const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', SUMMARIZER: 'local' });
  const app = await createApp(config, {}, false);
  await app.init();
  writeFileSync(out, `${JSON.stringify(buildOpenApi(app), null, 2)}\n`);
  await app.close();
  process.stderr.write(`OpenAPI document written to ${out}\n`);
}

void main();
