import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureBuilt, REPO_ROOT } from '../../support/service-process';
import { tempDb } from '../../support/test-app';

jest.setTimeout(120_000);
const run = promisify(execFile);

/**
 * Issue 22 item 3: a cold start loads only what serving needs. Packages that only some requests use are
 * loaded on first use (the bench's footprint suite measures the time and memory this saves): the OpenAPI
 * tooling (≈0.4 s) on the first /docs request, the PostgreSQL driver only on PostgreSQL, a summarizer's SDK
 * when that summarizer is configured, Fastify's ajv when a route with a JSON schema is registered.
 */
describe('boot footprint (built service)', () => {
  it('boots on SQLite without swagger, @fastify/static or pg, and loads swagger on the first /docs call', async () => {
    ensureBuilt();
    const db = tempDb();
    const probe = `
      const { loadConfig } = require(${JSON.stringify(join(REPO_ROOT, 'dist/libs/common/src'))});
      const { createApp } = require(${JSON.stringify(join(REPO_ROOT, 'dist/apps/memory-service/src/bootstrap'))});
      const pkg = (f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(f)?.[1];
      const loaded = () => [...new Set(Object.keys(require.cache).map(pkg).filter(Boolean))];
      (async () => {
        const config = loadConfig({ DATABASE_URL: 'sqlite:${db.path}', LOG_LEVEL: 'silent', SUMMARIZER: 'local' });
        const app = await createApp(config, {}, false);
        await app.listen({ port: 0, host: '127.0.0.1' });
        const atBoot = loaded();
        const { port } = app.getHttpServer().address();
        const doc = await fetch('http://127.0.0.1:' + port + '/docs/openapi.json');
        const afterDocs = loaded();
        await app.close();
        // A Fastify route with a JSON schema still validates: ajv loads when such a route is registered.
        const other = await createApp(config, {}, false);
        other.getHttpAdapter().getInstance().post('/probe', { schema: { body: { type: 'object', required: ['a'] } } }, async () => ({ ok: true }));
        await other.listen({ port: 0, host: '127.0.0.1' });
        const post = (body) => fetch('http://127.0.0.1:' + other.getHttpServer().address().port + '/probe', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const schemaStatuses = [(await post('{}')).status, (await post('{"a":1}')).status];
        await other.close();
        console.log(JSON.stringify({ atBoot, afterDocs, docStatus: doc.status, schemaStatuses, afterSchema: loaded() }));
      })().catch((err) => { console.error(err); process.exit(1); });
    `;
    try {
      const { stdout } = await run(process.execPath, ['-e', probe], { cwd: REPO_ROOT });
      const { atBoot, afterDocs, docStatus, schemaStatuses, afterSchema } = JSON.parse(
        stdout.trim().split('\n').pop()!,
      );
      expect(atBoot).toEqual(expect.arrayContaining(['@nestjs/core', 'fastify', 'typeorm', 'better-sqlite3']));
      // Also the summarizer SDKs (local summarizer) and Fastify's schema compilers (no route has a schema).
      const lazy = [
        '@nestjs/swagger',
        '@fastify/static',
        'swagger-ui-dist',
        'pg',
        '@anthropic-ai/sdk',
        'openai',
        'ajv',
      ];
      expect(atBoot.filter((p: string) => [...lazy, '@fastify/ajv-compiler'].includes(p))).toEqual([]);
      expect(schemaStatuses).toEqual([400, 200]);
      expect(afterSchema).toContain('ajv');
      expect(docStatus).toBe(200);
      expect(afterDocs).toContain('@nestjs/swagger');
    } finally {
      db.cleanup();
    }
  });
});
