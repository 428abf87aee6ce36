/**
 * A worker thread's entry when the service runs from its TypeScript sources (jest; DESIGN §13 read workers): jest
 * compiles the main thread's modules, but a worker thread is a plain Node thread, so this compiles `.ts` files with
 * swc as they load (the build's options, `@app/<lib>` as the build rewrites it) and then loads the entry named in
 * workerData. From dist the pool starts the compiled entry directly and never loads this file.
 *
 * Tests start these threads hundreds of times: each compiled file is kept in the temp folder, keyed by its path,
 * size and mtime, so only a changed source is compiled again.
 */
'use strict';
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { threadId, workerData } = require('node:worker_threads');
const { rewriteAliases, SWC_OPTIONS, ROOT } = require('./build.js');
const { ESM_PACKAGE_FILE } = require('./esm-packages');

const CACHE = join(tmpdir(), `lorekeeper-ts-worker-${process.getuid?.() ?? 0}`);
mkdirSync(CACHE, { recursive: true });

function compile(filename) {
  const swc = require('@swc/core');
  const out = swc.transformSync(readFileSync(filename, 'utf8'), { ...SWC_OPTIONS, filename, sourceMaps: 'inline' });
  // rewriteAliases maps @app/<lib> to <outDir>/libs/<lib>/src; with the sources' root as outDir, to the sources.
  return rewriteAliases(out.code, filename, ROOT);
}

/** Loads `filename` from its compiled copy in the cache, compiling it first when the copy is missing or stale. */
function loadCompiled(module, filename) {
  const { size, mtimeMs } = statSync(filename);
  const key = createHash('sha256').update(`${filename}\0${size}\0${mtimeMs}`).digest('hex');
  const cached = join(CACHE, `${key}.js`);
  let code;
  try {
    code = readFileSync(cached, 'utf8');
  } catch {
    code = compile(filename);
    // Written aside and renamed: another thread reading the same entry never sees half a file.
    const tmp = `${cached}.${process.pid}.${threadId}`;
    writeFileSync(tmp, code);
    renameSync(tmp, cached);
  }
  module._compile(code, filename);
}

Module._extensions['.ts'] = loadCompiled;
// Nest 12's ESM-only packages as CommonJS, as jest loads them on the main thread: Node 20's own require(esm) in a
// worker thread can abort the whole process (v8 "IsGraphAsync must be used on an instantiated module").
const loadJs = Module._extensions['.js'];
Module._extensions['.js'] = (module, filename) =>
  ESM_PACKAGE_FILE.test(filename) ? loadCompiled(module, filename) : loadJs(module, filename);

module.exports = require(workerData.entry);
