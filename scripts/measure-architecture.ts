/**
 * Architecture measures of issue 19, re-runnable before and after a restructure:
 *   npm run measure:architecture            (or: node dist/scripts/measure-architecture.js [--json])
 * - the longest functions/methods (lines from their first to their last line; migrations aside);
 * - lines wider than 120 characters (migrations and generated files aside);
 * - libs that import another lib's entity (a class decorated with @Entity, imported by name from @app/<lib>);
 * - writers per table: which source files insert, update or delete rows of each table. This one is a
 * heuristic over the code's write idioms (raw SQL, insertRows, query builders, repositories);
 * docs/architecture-rules.md
 *   says what it cannot see.
 * - files over 400 lines (production; MCP tool tables aside), imports of upper libs by libs/search, `§` citations
 *   that do not resolve to docs/design.md (scripts/design-citations.ts), e2e specs directly under test/.
 * Counts cover apps/ and libs/ without specs (production code); lines over 120 are also given for the whole tree.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { CitationResolver, codeCitations } from './design-citations';

const MAX_WIDTH = 120;

/** The repository root: the nearest package.json above this file (scripts/ or dist/scripts/). */
function findRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
}
const ROOT = findRoot();

function walk(dir: string, out: string[] = []): string[] {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

const rel = (p: string) => path.relative(ROOT, p).split(path.sep).join('/');
const isMigration = (f: string) => f.includes('/migrations/');
const isGenerated = (f: string) => f.endsWith('.generated.ts');
const isSpec = (f: string) => /\.(e2e-|pg-)?spec\.ts$/.test(f);
/** Test support that lives in libs (shared contract suites, fakes) is not production code. */
const isTestSupport = (f: string) => f.endsWith('.contract.ts') || f.includes('/testing/');
const isProduction = (f: string) =>
  /^(apps|libs)\//.test(f) && !isSpec(f) && !isMigration(f) && !isGenerated(f) && !isTestSupport(f);

const all = ['apps', 'libs', 'test', 'bench', 'scripts']
  .flatMap((d) => walk(path.join(ROOT, d)))
  .map(rel)
  .sort();
const sources = new Map(all.map((f) => [f, fs.readFileSync(path.join(ROOT, f), 'utf8')]));
const parsed = new Map<string, ts.SourceFile>();
const parse = (f: string) =>
  parsed.get(f) ?? parsed.set(f, ts.createSourceFile(f, sources.get(f)!, ts.ScriptTarget.ES2022, true)).get(f)!;

// ---- longest functions ----
interface Fn {
  file: string;
  name: string;
  line: number;
  lines: number;
}
function functionName(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  if (named.name && ts.isStringLiteral(named.name)) return named.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const p = node.parent;
  if (p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  if (p && ts.isPropertyAssignment(p) && ts.isIdentifier(p.name)) return p.name.text;
  if (p && ts.isPropertyDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  return '(anonymous)';
}
function functions(file: string): Fn[] {
  const sf = parse(file);
  const out: Fn[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ file, name: functionName(node), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}
const fns = all
  .filter(isProduction)
  .flatMap(functions)
  .sort((a, b) => b.lines - a.lines);

// ---- wide lines ----
const wide = (files: string[]) =>
  files
    .filter((f) => !isMigration(f) && !isGenerated(f))
    .reduce(
      (n, f) =>
        n +
        sources
          .get(f)!
          .split('\n')
          .filter((l) => l.length > MAX_WIDTH).length,
      0,
    );

// ---- entities: class name → table, owning lib ----
const libOf = (f: string) => /^libs\/([^/]+)\//.exec(f)?.[1] ?? null;
const entities = new Map<string, { table: string; lib: string | null; file: string }>();
for (const f of all.filter((f) => isProduction(f))) {
  const re = /@Entity\(\s*'([^']+)'[^)]*\)\s*(?:@\w+\([^)]*\)\s*)*export class (\w+)/g;
  for (const m of sources.get(f)!.matchAll(re)) entities.set(m[2], { table: m[1], lib: libOf(f), file: f });
}

// ---- cross-lib entity imports ----
const crossEntity: { file: string; names: string[]; from: string }[] = [];
for (const f of all.filter((f) => isProduction(f) && libOf(f))) {
  for (const st of parse(f).statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    const spec = st.moduleSpecifier.text;
    const target = /^@app\/([^/]+)/.exec(spec)?.[1];
    if (!target || target === libOf(f)) continue;
    const bindings = st.importClause?.namedBindings;
    const names =
      bindings && ts.isNamedImports(bindings) ? bindings.elements.map((e) => (e.propertyName ?? e.name).text) : [];
    const hit = names.filter((n) => entities.get(n)?.lib === target);
    if (hit.length) crossEntity.push({ file: f, names: hit, from: target });
  }
}
const libsImportingEntities = [...new Set(crossEntity.map((c) => libOf(c.file)!))].sort();

// ---- writers per table ----
const writers = new Map<string, Set<string>>();
const addWriter = (table: string, file: string) => {
  if (!writers.has(table)) writers.set(table, new Set());
  writers.get(table)!.add(file);
};
for (const f of all.filter(isProduction)) {
  const src = sources.get(f)!;
  const tableOf = (cls: string) => entities.get(cls)?.table;
  // Raw SQL: INSERT INTO t / UPDATE t / DELETE FROM t (also inside `insert(m, 't (cols)')` helpers).
  for (const m of src.matchAll(/\b(?:INSERT INTO|UPDATE|DELETE FROM)\s+"?([a-z_]+)"?/g)) {
    if (m[1] !== 'set' && m[1] !== 'skip') addWriter(m[1], f);
  }
  for (const m of src.matchAll(/\binsert\(\s*\w+,\s*'([a-z_]+) \(/g)) addWriter(m[1], f);
  // insertRows(m, XRecord, …), query builders .into(X) / .delete().from(X), repository writes.
  for (const m of src.matchAll(/insertRows\(\w+, (\w+)/g)) if (tableOf(m[1])) addWriter(tableOf(m[1])!, f);
  for (const m of src.matchAll(/\.into\((\w+)\)/g)) if (tableOf(m[1])) addWriter(tableOf(m[1])!, f);
  for (const m of src.matchAll(/getRepository\((\w+)\)\s*\.(?:insert|update|delete|upsert|save|remove|clear)\(/g)) {
    if (tableOf(m[1])) addWriter(tableOf(m[1])!, f);
  }
  for (const m of src.matchAll(/getRepository\((\w+)\)\s*\.createQueryBuilder\(\)\s*\.(?:update|delete|insert)\(/g)) {
    if (tableOf(m[1])) addWriter(tableOf(m[1])!, f);
  }
  for (const m of src.matchAll(/(?:const|let) (\w+) = \w+\.getRepository\((\w+)\)/g)) {
    const writes = new RegExp(
      `\\b${m[1]}\\s*\\.(?:insert|update|delete|upsert|save|remove|createQueryBuilder\\(\\)\\s*\\.(?:update|delete|insert))\\(`,
    );
    if (tableOf(m[2]) && writes.test(src)) addWriter(tableOf(m[2])!, f);
  }
  // A generic wipe (`.delete().from(entity)` looping over an array of entities): each listed entity is written.
  if (/\.delete\(\)\s*\.from\((?![A-Z]\w*Record\))\w+\)/.test(src)) {
    for (const list of src.matchAll(/=\s*\[([\w\s,]+)\]/g)) {
      for (const cls of list[1].split(',').map((x) => x.trim())) if (tableOf(cls)) addWriter(tableOf(cls)!, f);
    }
  }
  for (const m of src.matchAll(/\.delete\(\)\s*\.from\((\w+)\)/g)) if (tableOf(m[1])) addWriter(tableOf(m[1])!, f);
}
const owner = (f: string) => libOf(f) ?? f.split('/').slice(0, 2).join('/');
const writerLibs = (t: string) => [...new Set([...writers.get(t)!].map(owner))].sort();
const multiWriter = [...writers.keys()].filter((t) => writerLibs(t).length > 1);

// ---- rooms and boundaries of issue 32 ----
const MAX_FILE_LINES = 400;
/** A table of MCP tools is data, one entry per tool: long by nature, not a room asking to be split. */
const isToolTable = (f: string) => /: ToolTable = \{/.test(sources.get(f)!);
const lineCount = (f: string) => sources.get(f)!.split('\n').length - (sources.get(f)!.endsWith('\n') ? 1 : 0);
const longFiles = all
  .filter((f) => isProduction(f) && !isToolTable(f) && lineCount(f) > MAX_FILE_LINES)
  .map((f) => ({ file: f, lines: lineCount(f) }))
  .sort((a, b) => b.lines - a.lines);
const UPPER = /^@app\/(?!(common|database|event-store)$)/;
const searchUpperImports = all
  .filter((f) => isProduction(f) && libOf(f) === 'search')
  .flatMap((f) =>
    parse(f)
      .statements.filter(ts.isImportDeclaration)
      .map((st) => (st.moduleSpecifier as ts.StringLiteral).text)
      .filter((spec) => UPPER.test(spec))
      .map((spec) => `${f} ← ${spec}`),
  );
const resolver = new CitationResolver(ROOT);
const citations = codeCitations(ROOT, [path.join(ROOT, 'test/e2e/house/design-citations.e2e-spec.ts')]);
const unresolvedCitations = citations.map((c) => resolver.unresolved(c)).filter((u): u is string => u !== null);
const flatSpecs = fs.readdirSync(path.join(ROOT, 'test')).filter((f) => f.endsWith('.e2e-spec.ts')).length;

// ---- report ----
const report = {
  longestFunctions: fns.slice(0, 10),
  functionsOver60Lines: fns.filter((f) => f.lines > 60).length,
  linesOver120: { production: wide(all.filter(isProduction)), wholeTree: wide(all) },
  libsImportingAnotherLibsEntity: {
    count: libsImportingEntities.length,
    libs: libsImportingEntities,
    imports: crossEntity,
  },
  writersPerTable: Object.fromEntries(
    [...writers]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([t, w]) => [t, { libs: writerLibs(t), files: [...w].sort() }]),
  ),
  /** Tables written by more than one lib (two files of one lib, e.g. the FTS5 and PostgreSQL adapters, count once). */
  tablesWrittenBySeveralLibs: multiWriter.sort(),
  filesOver400Lines: longFiles,
  searchImportsOfUpperLibs: searchUpperImports,
  designCitations: { total: citations.length, unresolved: unresolvedCitations },
  e2eSpecsDirectlyUnderTest: flatSpecs,
};

if (process.argv.includes('--json')) {
  console.log(JSON.stringify(report, null, 2));
} else {
  console.log('Longest functions (apps + libs, no specs, no migrations):');
  for (const f of report.longestFunctions) console.log(`  ${f.lines} lines  ${f.name}  ${f.file}:${f.line}`);
  console.log(`Functions over 60 lines: ${report.functionsOver60Lines}`);
  console.log(
    `Lines over ${MAX_WIDTH} characters: production ${report.linesOver120.production}, ` +
      `whole tree ${report.linesOver120.wholeTree}`,
  );
  console.log(
    `Libs importing another lib's entity: ${report.libsImportingAnotherLibsEntity.count} ` +
      `(${libsImportingEntities.join(', ')})`,
  );
  for (const c of crossEntity) console.log(`  ${c.file} ← @app/${c.from}: ${c.names.join(', ')}`);
  console.log(
    `Writers per table (${multiWriter.length} tables written by more than one lib: ${multiWriter.join(', ')}):`,
  );
  for (const [t, w] of Object.entries(report.writersPerTable)) {
    console.log(`  ${t} [${w.libs.join(', ')}]: ${w.files.join(', ')}`);
  }
  console.log(`Production files over ${MAX_FILE_LINES} lines (MCP tool tables aside): ${longFiles.length}`);
  for (const f of longFiles) console.log(`  ${f.lines} lines  ${f.file}`);
  console.log(
    `libs/search imports of libs above it (anything but common, database, event-store): ${searchUpperImports.length}`,
  );
  for (const i of searchUpperImports) console.log(`  ${i}`);
  console.log(`§ citations: ${citations.length}, unresolved in docs/design.md: ${unresolvedCitations.length}`);
  for (const u of unresolvedCitations.slice(0, 20)) console.log(`  ${u}`);
  console.log(`e2e specs directly under test/: ${flatSpecs}`);
}
