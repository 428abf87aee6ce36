import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The lint rules of `npm run lint` fail on planted violations: a few files are written into the tree (the
 * rules are path-based, so they must sit where a real violation would), linted with the project's own
 * configs, and removed again. dependency-cruiser runs with --ignore-known, as CI does, so the known-violations
 * baseline cannot hide a new violation.
 */
const ROOT = join(__dirname, '../../..');
const TAG = `zz-planted-${process.pid}`;
const planted = {
  domain: `libs/campaign/src/domain/${TAG}.ts`,
  reach: `libs/context/src/${TAG}.ts`,
  cycleA: `libs/context/src/${TAG}-a.ts`,
  cycleB: `libs/context/src/${TAG}-b.ts`,
  clean: `libs/campaign/src/domain/${TAG}-clean.ts`,
  wide: `libs/context/src/${TAG}-wide.ts`,
  port: `libs/search/src/${TAG}.port.ts`,
  http: `libs/state/src/${TAG}-http.ts`,
  client: `libs/client/src/${TAG}.ts`,
  sizes: `libs/context/src/${TAG}-sizes.ts`,
  sizesSpec: `libs/context/src/${TAG}-sizes.spec.ts`,
};

/** Each lib imports a lib above it (docs/architecture.md, "Layers"): one planted file per lib, one per rule. */
const ABOVE: Record<string, string> = {
  common: 'database',
  client: 'common',
  database: 'event-store',
  'event-store': 'campaign',
  summarizer: 'campaign',
  search: 'context',
  campaign: 'memory',
  state: 'memory',
  memory: 'context',
  replica: 'context',
  context: 'replica',
};
const layer = (lib: string) => `libs/${lib}/src/${TAG}-layer.ts`;

function plant(file: string, text: string): void {
  mkdirSync(dirname(join(ROOT, file)), { recursive: true });
  writeFileSync(join(ROOT, file), text);
}

/**
 * A function of `lines` lines as max-lines-per-function counts them (its first and last line included; blank lines
 * and comments, which it skips, are planted between the statements and must not count).
 */
function functionOf(name: string, lines: number): string {
  const body = Array.from({ length: lines - 4 }, (_, i) => `  n += ${i};\n\n  // step ${i}\n`).join('');
  return `export function ${name}(): number {\n  let n = 0;\n${body}  return n;\n}\n`;
}

/** A line of `width` characters: a constant whose string pads it out. */
const lineOf = (name: string, width: number) => `export const ${name} = '${'x'.repeat(width - name.length - 19)}';`;

/** The planted sizes: each rule's limit, met and passed by one. */
const SIZES =
  `${functionOf('sixtyLines', 60)}${functionOf('sixtyOneLines', 61)}${lineOf('width120', 120)}\n` +
  `${lineOf('width121', 121)}\n`;

function run(bin: string, args: string[]): { status: number | null; out: string } {
  const r = spawnSync(join(ROOT, 'node_modules', '.bin', bin), args, { cwd: ROOT, encoding: 'utf8', timeout: 50_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

// The rules read files, not a database: the PostgreSQL pass of `npm test` (TEST_DATABASE_URL) need not repeat them.
const suite = process.env.TEST_DATABASE_URL ? describe.skip : describe;

const depcruise = (files: string[]) => run('depcruise', [...files, '--ignore-known', '--output-type', 'err']);

beforeAll(() => {
  if (process.env.TEST_DATABASE_URL) return;
  plant(
    planted.domain,
    "import { Injectable } from '@nestjs/common';\nimport { readFileSync } from 'node:fs';\n" +
      'export const planted = [Injectable, readFileSync];\n',
  );
  plant(
    planted.reach,
    "import { MemoryRecord } from '../../memory/src/memory.entity';\n" +
      "import { MessageRecord } from '@app/campaign';\nimport { renderProblem } from '../../../apps/memory-service/src/http/views';\n" +
      'export const planted = [MemoryRecord, MessageRecord, renderProblem];\n',
  );
  plant(
    planted.port,
    "import { Fts5SearchIndex } from './fts5/fts5.search-index';\nimport Sqlite from 'better-sqlite3';\n" +
      'export const planted = [Fts5SearchIndex, Sqlite];\n',
  );
  plant(
    planted.http,
    "import { FastifyAdapter } from '@nestjs/platform-fastify';\nexport const planted = FastifyAdapter;\n",
  );
  plant(planted.client, "import { readFileSync } from 'node:fs';\nexport const planted = readFileSync;\n");
  for (const [lib, above] of Object.entries(ABOVE)) {
    plant(layer(lib), `import * as above from '@app/${above}';\nexport const planted = above;\n`);
  }
  plant(planted.cycleA, `import { b } from './${TAG}-b';\nexport const a = () => b;\n`);
  plant(planted.cycleB, `import { a } from './${TAG}-a';\nexport const b = () => a;\n`);
  plant(planted.clean, "import { emptyState } from './state';\nexport const planted = emptyState;\n");
  const long = `export const planted = ['${'a'.repeat(40)}', '${'b'.repeat(40)}', '${'c'.repeat(40)}'];\n`;
  plant(planted.wide, long);
  plant(planted.sizes, SIZES);
  plant(planted.sizesSpec, SIZES);
});

afterAll(() => {
  for (const file of [...Object.values(planted), ...Object.keys(ABOVE).map(layer)]) {
    rmSync(join(ROOT, file), { force: true });
  }
});

suite('import rules (dependency-cruiser, as npm run lint:deps runs them)', () => {
  let result: { status: number | null; out: string };
  beforeAll(() => {
    const more = [planted.port, planted.http, planted.client, ...Object.keys(ABOVE).map(layer)];
    result = depcruise([planted.domain, planted.reach, planted.cycleA, planted.clean, ...more]);
  });

  it('fails the run', () => {
    expect(result.status).not.toBe(0);
  });

  it.each([
    ['pure-domain-no-framework', 'domain', 'node_modules/@nestjs/common'],
    ['pure-domain-no-io', 'domain', 'fs'],
    ['lib-through-index', 'reach', 'libs/memory/src/memory.entity.ts'],
    ['no-other-lib-entity', 'reach', 'libs/memory/src/memory.entity.ts'],
    ['lib-not-to-app', 'reach', 'apps/memory-service/src/http/views.ts'],
    ['no-circular', 'cycleA', `libs/context/src/${TAG}-b.ts`],
  ] as const)('names %s for the planted %s file', (rule, which, target) => {
    // A violation is `error <rule>: <from> → <to>`; a cycle lists its members on the following lines.
    const at = result.out.indexOf(`error ${rule}: ${planted[which]} → `);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(result.out.slice(at).split('\n').slice(0, 2).join(' ')).toContain(target);
  });

  it.each(Object.entries(ABOVE))(
    'names lib-layer-%s for a file of it importing @app/%s, a lib above it',
    (lib, above) => {
      expect(result.out).toContain(`error lib-layer-${lib}: ${layer(lib)} → libs/${above}/src/index.ts`);
    },
  );

  it.each([
    ['port-not-to-adapter', 'port', 'libs/search/src/fts5/fts5.search-index.ts'],
    ['port-not-to-adapter', 'port', 'node_modules/better-sqlite3/'],
    ['lib-no-http', 'http', 'node_modules/@nestjs/platform-fastify/'],
    ['client-standalone', 'client', 'fs'],
  ] as const)('names %s for the planted %s file (→ %s)', (rule, which, target) => {
    expect(result.out).toContain(`error ${rule}: ${planted[which]} → ${target}`);
  });

  it('names nothing for a domain file that imports only the domain', () => {
    expect(result.out).toContain('error pure-domain-no-io: '); // the same run did report violations
    expect(result.out).not.toContain(planted.clean);
  });
});

suite('ESLint and Prettier', () => {
  it("ESLint rejects a lib importing another lib's entity through its barrel", () => {
    const r = run('eslint', ['--no-warn-ignored', planted.reach]);
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/'MessageRecord' import from '@app\/campaign' is restricted.*no-restricted-imports/);
  });

  describe('sizes of production code (STYLE habit 11): errors that fail npm run lint', () => {
    interface Message {
      ruleId: string | null;
      severity: number;
      line: number;
    }
    const lint = (file: string) => {
      // As `npm run lint` runs it: the bulk suppressions of eslint-suppressions.json apply.
      const r = run('eslint', ['--pass-on-unpruned-suppressions', '--format', 'json', file]);
      const messages = (JSON.parse(r.out) as { messages: Message[] }[])[0].messages;
      return { status: r.status, messages: messages.map((m) => `${m.ruleId}@${m.line}:${m.severity}`) };
    };
    const lineOfText = (name: string) => SIZES.split('\n').findIndex((l) => l.includes(name)) + 1;

    it('fails a 61-line function and a 121-character line, and passes 60 lines and 120 characters', () => {
      const lines = SIZES.split('\n');
      expect(lines[lineOfText('width120') - 1]).toHaveLength(120);
      expect(lines[lineOfText('width121') - 1]).toHaveLength(121);
      const r = lint(planted.sizes);
      expect(r.status).toBe(1);
      expect(r.messages.sort()).toEqual(
        [`max-len@${lineOfText('width121')}:2`, `max-lines-per-function@${lineOfText('sixtyOneLines')}:2`].sort(),
      );
    });

    it('leaves specs to their own judgement', () => {
      expect(lint(planted.sizesSpec)).toEqual({ status: 0, messages: [] });
    });
  });

  it('Prettier --check rejects a line over 120 characters and accepts a formatted file', () => {
    const wide = run('prettier', ['--check', planted.wide]);
    expect(wide.status).not.toBe(0);
    expect(wide.out).toContain(planted.wide);
    expect(run('prettier', ['--check', planted.clean]).status).toBe(0);
  });
});
