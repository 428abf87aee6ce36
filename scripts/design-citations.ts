/**
 * The `§N` citations of the code and whether each resolves inside the repository: a bare `§N` or `DESIGN §N` to a
 * heading `## §N.` of docs/design.md (each number of a range `§5–7`, and a quoted subsection name `§10 "Fork"` to
 * the text of that section), and `<page>.md §N.M` to a numbered heading of that page. Used by
 * test/e2e/house/design-citations.e2e-spec.ts and `npm run measure:architecture`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SCANNED = ['apps', 'libs', 'bench', 'scripts', 'test'];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'openapi-client']);
const SOURCE = /\.(ts|js|mjs|cjs|html|css|py)$/;
// `[page.md ]§N[.M][–[§]K][ "name"]`
const CITATION = /(?:([\w./-]+\.md) )?§ ?(\d+)(?:\.(\d+))?(?: ?[–-] ?§?(\d+)(?![.\d]))?(?: "([^"]+)")?/g;

export interface Citation {
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

/** The citations in one file's text, each with its place (`file:line`). */
export function citationsIn(text: string, file: string): Citation[] {
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

/** The citations of apps/, libs/, bench/, scripts/ and test/ (`skip`: absolute paths of files to leave out). */
export function codeCitations(root: string, skip: string[] = []): Citation[] {
  return SCANNED.flatMap((d) => files(join(root, d)))
    .filter((f) => !skip.includes(f))
    .flatMap((f) => citationsIn(readFileSync(f, 'utf8'), relative(root, f)));
}

/** Headings `## §N. Title` (design.md) or `## N. Title` / `### N.M Title` (other pages) → section text by number. */
export function sections(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  let current: string | null = null;
  for (const line of markdown.split('\n')) {
    const h = /^#{1,4} §?(\d+(?:\.\d+)?)[. ]/.exec(line);
    if (h) current = h[1];
    if (current) out.set(current, `${out.get(current) ?? ''}${line}\n`);
  }
  return out;
}

/** Text as read: case, Markdown emphasis and line breaks aside. */
const plain = (text: string) => text.toLowerCase().replace(/[*`]/g, '').replace(/\s+/g, ' ');

/** Resolves citations against docs/design.md and the pages they name, under `root`. */
export class CitationResolver {
  private readonly pages = new Map<string, Map<string, string>>();

  constructor(private readonly root: string) {}

  /** Why a citation does not resolve, or null when it does. */
  unresolved(c: Citation): string | null {
    const target = this.page(c.page ?? 'docs/design.md');
    for (const n of c.numbers) {
      const body = target.get(n) ?? (n.includes('.') ? undefined : target.get(`${n}.`));
      if (!body) return `${c.at} ${c.text}: no section ${n} in ${c.page ?? 'docs/design.md'}`;
      if (c.name && !plain(body).includes(plain(c.name))) {
        return `${c.at} ${c.text}: section ${n} does not mention "${c.name}"`;
      }
    }
    return null;
  }

  page(path: string): Map<string, string> {
    const file = path.startsWith('docs/') ? path : `docs/${path}`;
    if (!this.pages.has(file)) {
      let text = '';
      try {
        text = readFileSync(join(this.root, file), 'utf8');
      } catch {
        // a page that does not exist resolves nothing
      }
      this.pages.set(file, sections(text));
    }
    return this.pages.get(file)!;
  }
}
