import { spawn } from 'node:child_process';
import {
  mkdtempSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, freePort, REPO_ROOT } from '../../support/service-process';
import { tempDb } from '../../support/test-app';

jest.setTimeout(120_000);

interface Builder {
  staleReason(root?: string): string | null;
  build(root?: string): Promise<{ files: number; ms: number }>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain JavaScript from the repository
const builder: Builder = require(join(REPO_ROOT, 'scripts/build.js'));

/** Every file under dir with its size and modification time. */
function snapshot(dir: string, into = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) snapshot(path, into);
    else {
      const st = statSync(path);
      into.set(path, `${st.size}:${st.mtimeMs}`);
    }
  }
  return into;
}

/** `npm start` (and demo, mcp) compile only when a source changed since the last build (issue 22 item 3). */
describe('start without a rebuild', () => {
  it('npm start with unchanged sources writes nothing under dist/ and serves /health', async () => {
    ensureBuilt();
    const before = snapshot(join(REPO_ROOT, 'dist'));
    const db = tempDb();
    const port = await freePort();
    const child = spawn('npm', ['start', '--silent'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: `sqlite:${db.path}`,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: npm, the shell and node are stopped together
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    try {
      let healthy = false;
      for (const deadline = Date.now() + 90_000; !healthy && Date.now() < deadline && child.exitCode === null;) {
        healthy = await fetch(`http://127.0.0.1:${port}/health`).then(
          (r) => r.ok,
          () => false,
        );
        if (!healthy) await new Promise((r) => setTimeout(r, 50));
      }
      expect({ healthy, out }).toMatchObject({ healthy: true });
      expect(out).not.toMatch(/built \d+ files/);
      expect(snapshot(join(REPO_ROOT, 'dist'))).toEqual(before);
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
      db.cleanup();
    }
  });

  it('start, demo and mcp build only when stale, never unconditionally', () => {
    const scripts = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
    for (const name of ['start', 'demo', 'mcp', 'bench']) {
      expect(scripts[name]).toMatch(/^node scripts\/build\.js --if-stale && node dist\//);
    }
  });

  describe('staleness (on a scratch tree)', () => {
    let root: string;
    beforeAll(() => {
      root = mkdtempSync(join(tmpdir(), 'lk-build-'));
      mkdirSync(join(root, 'apps/x'), { recursive: true });
      mkdirSync(join(root, 'libs/common/src'), { recursive: true });
      writeFileSync(join(root, 'package.json'), '{}');
      writeFileSync(join(root, 'libs/common/src/index.ts'), 'export const answer: number = 42;\n');
      writeFileSync(
        join(root, 'apps/x/main.ts'),
        "import { answer } from '@app/common';\nexport const doubled = answer * 2;\n",
      );
      writeFileSync(join(root, 'apps/x/main.spec.ts'), 'not compiled');
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('builds a tree that was never built, then finds it current', async () => {
      expect(builder.staleReason(root)).toBe('no previous build');
      const { files } = await builder.build(root);
      expect(files).toBe(2);
      expect(builder.staleReason(root)).toBeNull();
      // The @app alias is rewritten to a relative path, so the built file runs as is.
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- the file the build just wrote
      expect(require(join(root, 'dist/apps/x/main.js')).doubled).toBe(84);
    });

    it('is stale after a source changes, and after a file appears with an old modification time', async () => {
      const future = Date.now() / 1000 + 5;
      utimesSync(join(root, 'apps/x/main.ts'), future, future);
      expect(builder.staleReason(root)).toBe('sources changed');
      await builder.build(root);
      utimesSync(join(root, 'dist/.built-at'), future + 5, future + 5);
      expect(builder.staleReason(root)).toBeNull();
      writeFileSync(join(root, 'apps/x/other.ts'), 'export {};\n');
      utimesSync(join(root, 'apps/x/other.ts'), 1, 1); // as a checkout or an unpacked archive may leave it
      expect(builder.staleReason(root)).toBe('source files added or removed');
    });
  });
});
