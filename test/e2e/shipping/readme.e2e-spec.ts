import { parseApiKeys } from '@app/common';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, REPO_ROOT, ServiceProcess, startServiceProcess } from '../../support/service-process';

jest.setTimeout(180_000);
// Nothing here depends on the database: the PostgreSQL pass of `npm test` (TEST_DATABASE_URL) need not repeat it.
const suite = process.env.TEST_DATABASE_URL ? describe.skip : describe;

interface Block {
  lang: string;
  body: string;
  line: number;
  /** The `text` block right after a `bash` block: the output it shows. */
  shows?: string;
}

/** The fenced blocks of a markdown file, in order; a `text` block right after a `bash` one is its output. */
function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const re = /^```(\w*)\n([\s\S]*?)^```\n/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(markdown)) !== null) {
    const block = { lang: m[1] ?? '', body: m[2] ?? '', line: markdown.slice(0, m.index).split('\n').length };
    const prev = blocks.at(-1);
    const adjacent = prev && markdown.slice(0, m.index).endsWith(`${prev.body}\`\`\`\n`);
    if (block.lang === 'text' && prev?.lang === 'bash' && adjacent) prev.shows = block.body;
    blocks.push(block);
  }
  return blocks;
}

/** Each shown line appears in the output, in order (`…` stands for anything; a line of `…` for any lines). */
function missingLines(shown: string, output: string): string[] {
  const out = output.split('\n');
  let at = 0;
  const missing: string[] = [];
  for (const line of shown.trimEnd().split('\n')) {
    if (line.trim() === '…') continue;
    const re = new RegExp(`^${line.split('…').map(escape).join('.*')}$`);
    const found = out.findIndex((o, i) => i >= at && re.test(o));
    if (found === -1) missing.push(line);
    else at = found + 1;
  }
  return missing;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The quick start: the one block this test does not run, because it installs and starts what the test starts. */
const QUICK_START = /^npm ci && npm start\b/;

/**
 * DESIGN §14: every `bash` block of README.md runs, in order, against a fresh service (the quick start's, which
 * this test starts itself: the built service on an empty SQLite file, offline summarizer, no keys), and prints
 * what the `text` block under it shows. localhost:3000 becomes the test service's address.
 */
suite('README.md runs', () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const blocks = fencedBlocks(readme);
  const bash = blocks.filter((b) => b.lang === 'bash');
  let dir: string;
  let service: ServiceProcess;
  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'lk-readme-'));
    service = await startServiceProcess({ dbPath: join(dir, 'data/lorekeeper.db'), env: { LOG_LEVEL: 'warn' } });
  });
  afterAll(async () => {
    service?.kill('SIGTERM');
    await service?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  it('is at most 400 lines; its bash blocks hold no placeholder and no command that never ends', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(401);
    expect(bash.length).toBeGreaterThanOrEqual(5);
    expect(bash[0]?.body).toMatch(QUICK_START);
    for (const b of bash) {
      const where = `README.md:${b.line}`;
      expect({ where, placeholder: /…|<[a-zA-Z]+>|\bYOUR_/.test(b.body) }).toEqual({ where, placeholder: false });
      const endless = b.body.split('\n').filter((l) => /curl\b[^|]*\s-\w*N/.test(l) && !/--max-time/.test(l));
      expect({ where, endless }).toEqual({ where, endless: [] });
    }
  });

  it('shows API keys the service accepts', () => {
    const values = [...readme.matchAll(/LOREKEEPER_API_KEYS="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(values.length).toBeGreaterThan(0);
    for (const v of values) expect(() => parseApiKeys(v)).not.toThrow();
  });

  it('runs every bash block in order and prints what the README shows', async () => {
    for (const b of bash.slice(1)) {
      const script = b.body.replaceAll('localhost:3000', `127.0.0.1:${service.port}`);
      const res = await runBash(script, dir);
      const where = `README.md:${b.line}`;
      expect({ where, code: res.code, stderr: res.stderr }).toEqual({ where, code: 0, stderr: '' });
      if (b.shows) expect({ where, missing: missingLines(b.shows, res.stdout) }).toEqual({ where, missing: [] });
    }
  });
});

function runBash(script: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      'bash',
      ['-e', '-c', script],
      { cwd, timeout: 60_000, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } },
      (_err, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}
