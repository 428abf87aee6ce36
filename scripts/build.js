#!/usr/bin/env node
/**
 * The build: every TypeScript source → dist/ with swc (about 2 s instead of tsc's 30+; type-checking is
 * `npm run typecheck`, run in CI). Plain JavaScript so it runs before anything is built.
 *
 *   node scripts/build.js             build
 *   node scripts/build.js --if-stale  build only when a source, package.json or a tsconfig changed since the
 *                                     last build (npm start, demo, mcp): an unchanged tree writes nothing
 */
'use strict';
const { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } = require('node:fs');
const { dirname, join, relative, resolve, sep } = require('node:path');
const { createHash } = require('node:crypto');
const { spawnSync } = require('node:child_process');

const ROOT = resolve(__dirname, '..');
const SOURCE_DIRS = ['apps', 'libs', 'bench', 'scripts', 'test/support'];
const CONFIG_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.js'];
const STAMP = 'dist/.built-at';

const isSource = (name) =>
  name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.e2e-spec.ts');

/** Sources the build compiles (relative paths, sorted) and the newest modification time among them and the configs. */
function scan(root = ROOT) {
  const files = [];
  let newest = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (isSource(entry.name)) {
        files.push(path);
        newest = Math.max(newest, statSync(join(root, path)).mtimeMs);
      }
    }
  };
  for (const dir of SOURCE_DIRS) if (existsSync(join(root, dir))) walk(dir);
  for (const file of CONFIG_FILES)
    if (existsSync(join(root, file))) newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
  files.sort();
  return { files, newest, listHash: createHash('sha256').update(files.join('\n')).digest('hex') };
}

/**
 * Why a build is needed, or null when dist/ is current: no stamp, a file newer than the stamp, or a
 * source added or removed (a checked-out file can carry an old mtime; the stamp records the file list).
 */
function staleReason(root = ROOT) {
  const stamp = join(root, STAMP);
  if (!existsSync(stamp)) return 'no previous build';
  const { newest, listHash } = scan(root);
  if (newest > statSync(stamp).mtimeMs) return 'sources changed';
  if (readFileSync(stamp, 'utf8').trim() !== listHash) return 'source files added or removed';
  return null;
}

/** `@app/<lib>` → the relative path of dist/libs/<lib>/src from the compiled file (what tsc-alias did). */
function rewriteAliases(code, outFile, outDir) {
  return code.replace(/require\("@app\/([a-z-]+)"\)/g, (_m, lib) => {
    let rel = relative(dirname(outFile), join(outDir, 'libs', lib, 'src'))
      .split(sep)
      .join('/');
    if (!rel.startsWith('.')) rel = `./${rel}`;
    return `require("${rel}")`;
  });
}

/** How a TypeScript source becomes CommonJS (also scripts/ts-worker.js, which compiles on load in worker threads). */
const SWC_OPTIONS = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
};

async function build(root = ROOT) {
  const started = Date.now();
  const swc = require('@swc/core');
  const outDir = join(root, 'dist');
  const { files, listHash } = scan(root);
  const options = { ...SWC_OPTIONS, sourceMaps: true };
  await Promise.all(
    files.map(async (file) => {
      const outFile = join(outDir, file.replace(/\.ts$/, '.js'));
      const out = await swc.transformFile(join(root, file), {
        ...options,
        sourceFileName: relative(dirname(outFile), join(root, file)),
      });
      mkdirSync(dirname(outFile), { recursive: true });
      writeFileSync(
        outFile,
        `${rewriteAliases(out.code, outFile, outDir)}\n//# sourceMappingURL=${outFile.split(sep).pop()}.map\n`,
      );
      if (out.map) writeFileSync(`${outFile}.map`, out.map);
    }),
  );
  // Stamped with the build's start, so a source saved during the build counts as newer.
  writeFileSync(join(root, STAMP), `${listHash}\n`);
  utimesSync(join(root, STAMP), started / 1000, started / 1000);
  const warmed = warmBootCache(root);
  return { files: files.length, ms: Date.now() - started, warmed };
}

const SERVICE_MAIN = 'dist/apps/memory-service/src/main.js';

/**
 * One boot of the built service with BOOT_CACHE=warm on an in-memory database: it writes dist/.boot-cache/
 * (keyed to this build's stamp), so the first start after a build loads from it and no start writes under dist/.
 * A failure only costs speed: the service then loads modules the ordinary way and writes the cache itself.
 */
function warmBootCache(root = ROOT) {
  if (!existsSync(join(root, SERVICE_MAIN))) return 'no service';
  const env = {
    PATH: process.env.PATH ?? '',
    BOOT_CACHE: 'warm',
    DATABASE_URL: 'sqlite::memory:',
    SUMMARIZER: 'local',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
  };
  const run = spawnSync(process.execPath, [join(root, SERVICE_MAIN)], { env, stdio: 'pipe', timeout: 120_000 });
  if (run.status === 0) return 'boot cache written';
  process.stderr.write(
    `boot cache not written (${run.error ?? `exit ${run.status}`}): ${String(run.stderr).slice(-500)}\n`,
  );
  return 'boot cache failed';
}

module.exports = { scan, staleReason, build, rewriteAliases, warmBootCache, SWC_OPTIONS, ROOT };

if (require.main === module) {
  const ifStale = process.argv.includes('--if-stale');
  const reason = ifStale ? staleReason() : 'requested';
  if (reason === null) process.exit(0);
  build()
    .then(({ files, ms, warmed }) => {
      // stderr: stdout belongs to the program started next (the MCP server speaks JSON-RPC on it).
      if (ifStale) process.stderr.write(`built ${files} files in ${ms} ms (${reason}; ${warmed})\n`);
    })
    .catch((err) => {
      process.stderr.write(`build failed: ${err.stack ?? err}\n`);
      process.exit(1);
    });
}
