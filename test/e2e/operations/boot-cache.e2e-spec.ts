import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureBuilt, REPO_ROOT } from '../../support/service-process';
import { tempDb } from '../../support/test-app';

jest.setTimeout(120_000);
const run = promisify(execFile);
const BOOT_CACHE = join(REPO_ROOT, 'dist/apps/memory-service/src/boot-cache');

/**
 * Issue 22 item 3, cold start ≤ 1 s: the boot cache (apps/memory-service/src/boot-cache.ts) serves compiled code,
 * resolutions and Nest's ESM as CommonJS, and must never serve a file as it was before it changed.
 */
describe('boot cache', () => {
  describe('on a scratch tree', () => {
    let root: string;
    /** One process: install the cache on `root`, require lib/a.js, write the cache; prints value and stats. */
    const start = async (): Promise<{ value: unknown; stats: Record<string, number> }> => {
      const probe = `
        const cache = require(${JSON.stringify(BOOT_CACHE)});
        cache.installBootCache({}, ${JSON.stringify(root)});
        const value = require(${JSON.stringify(join(root, 'lib/a.js'))});
        console.log(JSON.stringify({ value, stats: cache.finishBootCache() }));
      `;
      // BOOT_CACHE=off keeps the module from installing itself on the repository when it is loaded.
      const { stdout } = await run(process.execPath, ['-e', probe], { env: { ...process.env, BOOT_CACHE: 'off' } });
      return JSON.parse(stdout.trim());
    };
    const write = (path: string, text: string) => {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), text);
    };

    beforeAll(() => {
      root = mkdtempSync(join(tmpdir(), 'lk-boot-cache-'));
      write('dist/.built-at', 'stamp\n');
      write(
        'lib/a.js',
        "const esm = require('@nestjs/esm-probe');\nmodule.exports = { b: require('./b'), esm: esm.named + esm.default };\n",
      );
      write('lib/b.js', 'module.exports = 1;\n');
      // An ESM package in the translated scope that declares its own `require`, like @nestjs/terminus does.
      const pkg = 'lib/node_modules/@nestjs/esm-probe';
      write(`${pkg}/package.json`, '{ "name": "@nestjs/esm-probe", "type": "module", "main": "index.js" }');
      write(
        `${pkg}/index.js`,
        "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n" +
          "export const named = require('./data.json').n;\nexport default 30;\n",
      );
      write(`${pkg}/data.json`, '{ "n": 12 }');
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('compiles everything on the first start, then serves every file from the cache', async () => {
      const first = await start();
      expect(first).toEqual({
        value: { b: 1, esm: 42 },
        stats: expect.objectContaining({ hits: 0, misses: 3, translated: 1 }),
      });
      expect(existsSync(join(root, 'dist/.boot-cache'))).toBe(true);
      const second = await start();
      expect(second).toEqual({
        value: { b: 1, esm: 42 },
        stats: expect.objectContaining({ hits: 3, misses: 0, rejected: 0 }),
      });
      expect(second.stats.resolvedFromCache).toBeGreaterThanOrEqual(2);
    });

    it('reloads a file whose mtime changed, even at the same size', async () => {
      await start();
      const b = join(root, 'lib/b.js');
      const { mtimeMs } = statSync(b);
      writeFileSync(b, 'module.exports = 2;\n'); // same length as before
      utimesSync(b, (mtimeMs + 5000) / 1000, (mtimeMs + 5000) / 1000);
      const changed = await start();
      expect(changed).toEqual({ value: { b: 2, esm: 42 }, stats: expect.objectContaining({ hits: 2, misses: 1 }) });
      expect((await start()).stats).toEqual(expect.objectContaining({ hits: 3, misses: 0 }));
    });

    it('drops the whole cache when the build stamp changes (a rebuild)', async () => {
      await start();
      const stamp = join(root, 'dist/.built-at');
      const later = Date.now() / 1000 + 10;
      utimesSync(stamp, later, later);
      expect((await start()).stats).toEqual(expect.objectContaining({ hits: 0, misses: 3, resolvedFromCache: 0 }));
    });
  });

  it('the built service boots from the cache the build wrote: Nest loads as CommonJS, nothing compiles', async () => {
    ensureBuilt();
    const db = tempDb();
    const probe = `
      const cache = require(${JSON.stringify(BOOT_CACHE)});
      const { loadConfig } = require(${JSON.stringify(join(REPO_ROOT, 'dist/libs/common/src'))});
      const { createApp } = require(${JSON.stringify(join(REPO_ROOT, 'dist/apps/memory-service/src/bootstrap'))});
      (async () => {
        const config = loadConfig({ DATABASE_URL: 'sqlite:${db.path}', LOG_LEVEL: 'silent', SUMMARIZER: 'local' });
        const app = await createApp(config, {}, false);
        await app.listen({ port: 0, host: '127.0.0.1' });
        const { port } = app.getHttpServer().address();
        const health = await fetch('http://127.0.0.1:' + port + '/health');
        const nestAsCjs = Object.keys(require.cache).some((f) => f.endsWith('node_modules/@nestjs/core/index.js'));
        await app.close();
        console.log(JSON.stringify({ stats: cache.bootCacheStats(), nestAsCjs, health: health.status }));
      })().catch((err) => { console.error(err); process.exit(1); });
    `;
    try {
      const env = { ...process.env, BOOT_CACHE: 'on' };
      const { stdout } = await run(process.execPath, ['-e', probe], { cwd: REPO_ROOT, env });
      const { stats, nestAsCjs, health } = JSON.parse(stdout.trim().split('\n').pop()!);
      expect(health).toBe(200);
      expect(nestAsCjs).toBe(true);
      expect(stats.translated).toBeGreaterThan(300);
      // main.js and graceful-shutdown.js are not loaded by this probe; the rest of the boot is cached.
      expect(stats.hits).toBeGreaterThan(1000);
      expect(stats.misses).toBeLessThan(stats.hits / 20);
    } finally {
      db.cleanup();
    }
  });
});
