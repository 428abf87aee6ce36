#!/usr/bin/env node
/**
 * The measures of issue 32's closing note, one line each, comparable before and after a change:
 *   node scripts/house-measures.js [--json]
 * Most come from `measure:architecture` (scripts/measure-architecture.ts, built to dist/ first when stale); the
 * `duplicates` count comes from the workplace's `duplicates` command when it is on the PATH (it is not a dependency
 * of the project: where it is missing the line says so). Non-boilerplate pairs = all pairs − those marked
 * boilerplate, read from the command's first line.
 */
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const run = (cmd, args) => execFileSync(cmd, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });

function architecture() {
  run(process.execPath, ['scripts/build.js', '--if-stale']);
  return JSON.parse(run(process.execPath, ['dist/scripts/measure-architecture.js', '--json']));
}

/** `N pairs of places (F files read), … (S by shape alone, B of those marked boilerplate)` → N − B. */
function duplicatePairs() {
  let head;
  try {
    head = run('duplicates', ['--most', '1', '--seconds', '120']).split('\n')[0];
  } catch {
    return { pairs: null, note: 'duplicates command not on the PATH' };
  }
  if (/^no duplicates/.test(head)) return { pairs: 0, nonBoilerplate: 0, note: head };
  const all = Number(/^(\d+) pairs/.exec(head)?.[1] ?? NaN);
  const boilerplate = Number(/(\d+) of those marked boilerplate/.exec(head)?.[1] ?? 0);
  return { pairs: all, nonBoilerplate: all - boilerplate, note: head };
}

const a = architecture();
const longest = a.longestFunctions[0];
const measures = {
  longestFunction: { lines: longest.lines, name: longest.name, at: `${longest.file}:${longest.line}` },
  functionsOver60Lines: a.functionsOver60Lines,
  filesOver400Lines: a.filesOver400Lines,
  searchImportsOfUpperLibs: a.searchImportsOfUpperLibs.length,
  unresolvedCitations: a.designCitations.unresolved.length,
  e2eSpecsDirectlyUnderTest: a.e2eSpecsDirectlyUnderTest,
  duplicates: duplicatePairs(),
};

if (process.argv.includes('--json')) {
  console.log(JSON.stringify(measures, null, 2));
} else {
  const l = measures.longestFunction;
  console.log(
    `longest function: ${l.lines} lines, ${l.name} (${l.at}); over 60 lines: ${measures.functionsOver60Lines}`,
  );
  console.log(`files over 400 lines (production, MCP tool tables aside): ${measures.filesOver400Lines.length}`);
  for (const f of measures.filesOver400Lines) console.log(`  ${f.lines}  ${f.file}`);
  console.log(`libs/search imports of @app/campaign|memory|context: ${measures.searchImportsOfUpperLibs}`);
  console.log(`unresolved § citations: ${measures.unresolvedCitations}`);
  console.log(`e2e specs directly under test/: ${measures.e2eSpecsDirectlyUnderTest}`);
  const d = measures.duplicates;
  console.log(
    d.pairs === null ? `duplicates: n/a (${d.note})` : `duplicates: ${d.nonBoilerplate} non-boilerplate of ${d.pairs}`,
  );
}
