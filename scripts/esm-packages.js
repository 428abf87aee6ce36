/**
 * Packages that ship only ES modules and that the TypeScript-source runs (jest, and the read workers' ts-worker.js)
 * transpile to CommonJS with swc instead of loading through Node 20's require(esm). One list for both.
 */
'use strict';
const ESM_PACKAGES = [
  '@nestjs',
  'uid',
  'file-type',
  'strtok3',
  'token-types',
  '@tokenizer',
  'uint8array-extras',
  '@borewit',
  'glob',
  'minimatch',
  'path-scurry',
  'lru-cache',
  'minipass',
  'content-disposition',
];

/** A file of one of those packages (the last node_modules segment decides, as in jest's transformIgnorePatterns). */
const ESM_PACKAGE_FILE = new RegExp(`/node_modules/(?:${ESM_PACKAGES.join('|')})/(?!.*/node_modules/)`);

module.exports = { ESM_PACKAGES, ESM_PACKAGE_FILE };
