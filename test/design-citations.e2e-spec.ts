import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Every `§N` the code cites resolves inside the repository: a bare `§N` or `DESIGN §N` to a heading `## §N.` of
 * docs/design.md (each number of a range `§5–7`, and a quoted subsection name `§10 "Fork"` to text of that
 * section), and `<page>.md §N.M` to a numbered heading of that page.
 */
const ROOT = join(__dirname, '..');
const SCANNED = ['apps', 'libs', 'bench', 'scripts', 'test'];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'openapi-client']);
const SOURCE = /\.(ts|js|mjs|cjs|html|css|py)$/;
// `[page.md ]§N[.M][–[§]K][ "name"]`
const CITATION = /(?:([\w./-]+\.md) )?§ ?(\d+)(?:\.(\d+))?(?: ?[–-] ?§?(\d+)(?![.\d]))?(?: "([^"]+)")?/g;

interface Citation {
  at: string;
  text: string;
  page: string | null;
  numbers: string[];
  name: string | null;
}

function files(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP_DIRS.has(e.name)) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) files(p, out);
    else if (SOURCE.test(e.name)) out.push(p);
  }
  return out;
}

function citationsIn(text: string, file: string): Citation[] {
  const out: Citation[] = [];
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(CITATION)) {
      const [whole, page, n, sub, to, name] = m;
      const last = to ? Number(to) : Number(n);
      const numbers = sub ? [`${n}.${sub}`] : Array.from({ length: last - Number(n) + 1 }, (_, k) => `${+n + k}`);
      out.push({ at: `${file}:${i + 1}`, text: whole, page: page ?? null, numbers, name: name ?? null });
    }
  });
  return out;
}

/** Headings `## §N. Title` (design.md) or `## N. Title` / `### N.M Title` (other pages) → section text by number. */
function sections(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  let current: string | null = null;
  for (const line of markdown.split('\n')) {
    const h = /^#{1,4} §?(\d+(?:\.\d+)?)[. ]/.exec(line);
    if (h) current = h[1];
    if (current) out.set(current, `${out.get(current) ?? ''}${line}\n`);
  }
  return out;
}

const pages = new Map<string, Map<string, string>>();
function page(path: string): Map<string, string> {
  const file = path.startsWith('docs/') ? path : `docs/${path}`;
  if (!pages.has(file)) {
    let text = '';
    try {
      text = readFileSync(join(ROOT, file), 'utf8');
    } catch {
      // a page that does not exist resolves nothing
    }
    pages.set(file, sections(text));
  }
  return pages.get(file)!;
}

/** Text as read: case, Markdown emphasis and line breaks aside. */
const plain = (text: string) => text.toLowerCase().replace(/[*`]/g, '').replace(/\s+/g, ' ');

/** Why a citation does not resolve, or null when it does. */
function unresolved(c: Citation, design: Map<string, string>): string | null {
  const target = c.page ? page(c.page) : design;
  for (const n of c.numbers) {
    const body = target.get(n) ?? (n.includes('.') ? undefined : target.get(`${n}.`));
    if (!body) return `${c.at} ${c.text}: no section ${n} in ${c.page ?? 'docs/design.md'}`;
    if (c.name && !plain(body).includes(plain(c.name))) {
      return `${c.at} ${c.text}: section ${n} does not mention "${c.name}"`;
    }
  }
  return null;
}

const suite = process.env.TEST_DATABASE_URL ? describe.skip : describe;

suite('design citations (§N in the code resolve to docs/design.md)', () => {
  const design = sections(readFileSync(join(ROOT, 'docs/design.md'), 'utf8'));
  const cited = SCANNED.flatMap((d) => files(join(ROOT, d)))
    .filter((f) => f !== __filename) // its planted citations below are meant not to resolve
    .flatMap((f) => citationsIn(readFileSync(f, 'utf8'), relative(ROOT, f)));

  it('finds the code’s citations (the scan itself works)', () => {
    expect(cited.length).toBeGreaterThan(300);
    expect(cited.some((c) => c.name === 'Who may read what')).toBe(true);
  });

  it('resolves every cited section, range and subsection name', () => {
    expect(cited.map((c) => unresolved(c, design)).filter(Boolean)).toEqual([]);
  });

  it('has the numbered sections §1–§15, in order', () => {
    expect([...design.keys()]).toEqual(Array.from({ length: 15 }, (_, i) => `${i + 1}`));
  });

  it('reports a citation of a missing section, range end, subsection name or page heading', () => {
    const planted = citationsIn(
      [
        '// DESIGN §16: no such section',
        '// §13–17 ends past the last section',
        '// §10 "Time travel" is not a subsection of §10',
        '// docs/history/timelines-plan.md §1.9 is not a heading of the plan',
        '// DESIGN §8 "Who may read what" and docs/history/timelines-plan.md §1.3 resolve',
      ].join('\n'),
      'planted.ts',
    );
    expect(planted.map((c) => unresolved(c, design))).toEqual([
      expect.stringContaining('no section 16'),
      expect.stringContaining('no section 16'),
      expect.stringContaining('does not mention "Time travel"'),
      null,
      expect.stringContaining('no section 1.9 in docs/history/timelines-plan.md'),
      null,
      null,
    ]);
  });
});
