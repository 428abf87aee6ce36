/**
 * A worker thread's entry when the service runs from its TypeScript sources (jest; DESIGN §13 read workers): jest
 * compiles the main thread's modules, but a worker thread is a plain Node thread, so this compiles `.ts` files with
 * swc as they load (the build's options, `@app/<lib>` as the build rewrites it) and then loads the entry named in
 * workerData. From dist the pool starts the compiled entry directly and never loads this file.
 */
'use strict';
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const { workerData } = require('node:worker_threads');
const swc = require('@swc/core');
const { rewriteAliases, SWC_OPTIONS, ROOT } = require('./build.js');

Module._extensions['.ts'] = (module, filename) => {
  const out = swc.transformSync(readFileSync(filename, 'utf8'), { ...SWC_OPTIONS, filename, sourceMaps: 'inline' });
  // rewriteAliases maps @app/<lib> to <outDir>/libs/<lib>/src; with the sources' root as outDir, to the sources.
  module._compile(rewriteAliases(out.code, filename, ROOT), filename);
};

module.exports = require(workerData.entry);
