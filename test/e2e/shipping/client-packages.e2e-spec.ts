import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../support/service-process';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(240_000);
// Nothing here depends on the database: the PostgreSQL pass of `npm test` (TEST_DATABASE_URL) need not repeat it.
const suite = process.env.TEST_DATABASE_URL ? describe.skip : describe;
const run = promisify(execFile);
const NPM_FLAGS = ['--no-audit', '--no-fund', '--loglevel=error'];
const CHECK = join(REPO_ROOT, 'test/client-packages/ts-client-check.mts');

/** DESIGN §14: the TypeScript and Python clients, each as a user gets it, against the running service. */
suite('the client packages against the running service', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('@lorekeeper/client: a tarball with types and no dependency, compiled strictly and run', async () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'libs/client/package.json'), 'utf8'));
    expect(manifest.dependencies ?? {}).toEqual({});
    // A project of its own: node_modules with only the client in it (and Node's types for tsc).
    const project = mkdtempSync(join(tmpdir(), 'lk-ts-client-'));
    try {
      const packed = await run('npm', ['pack', '--pack-destination', project, ...NPM_FLAGS], {
        cwd: join(REPO_ROOT, 'libs/client'),
      });
      const tarball = join(project, packed.stdout.trim().split('\n').pop() ?? '');
      const listing = (await run('tar', ['tzf', tarball])).stdout.trim().split('\n');
      expect(listing).toEqual(expect.arrayContaining(['package/dist/index.d.ts', 'package/dist/index.js']));
      expect(listing.filter((f) => /(?<!\.d)\.ts$|spec/.test(f))).toEqual([]);
      await run('npm', ['init', '-y', ...NPM_FLAGS], { cwd: project });
      await run('npm', ['install', '--offline', ...NPM_FLAGS, tarball], { cwd: project });
      symlinkSync(join(REPO_ROOT, 'node_modules/@types'), join(project, 'node_modules/@types'), 'dir');
      copyFileSync(CHECK, join(project, 'ts-client-check.mts'));
      expect(await compileIn(project, 'ts-client-check.mts')).toBe('');
      const { stdout } = await run(process.execPath, [join(project, 'out/ts-client-check.mjs'), t.url]);
      const result = JSON.parse(stdout);
      expect(result.text).toContain('forty crates');
      expect(result.events).toEqual(expect.arrayContaining(['CampaignCreated', 'MessageRecorded']));
      expect(result.missing).toBe('404 CAMPAIGN_NOT_FOUND');
      expect(result.listed).toContain('ts-package');
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('the Python client (standard library only): python3 -m unittest in clients/python', async () => {
    const res = await run('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-v'], {
      cwd: join(REPO_ROOT, 'clients/python'),
      env: { PATH: process.env.PATH ?? '', LOREKEEPER_URL: t.url, PYTHONDONTWRITEBYTECODE: '1' },
    }).catch((err: { stdout: string; stderr: string }) => err);
    // unittest reports on stderr: every test ran and passed (none skipped for a missing URL).
    expect(res.stderr).toMatch(/^OK$/m);
    expect(res.stderr).not.toMatch(/skipped/);
    expect(res.stderr).toMatch(/Ran ([5-9]|\d\d+) tests/);
  });
});

/** tsc --strict in the project folder, resolving @lorekeeper/client from its node_modules. */
async function compileIn(project: string, name: string): Promise<string> {
  const tsconfig = {
    compilerOptions: {
      strict: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      lib: ['es2022', 'dom'],
      types: ['node'],
      outDir: 'out',
    },
    files: [name],
  };
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
  const tsc = await run(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.'], {
    cwd: project,
  }).catch((err: { stdout: string }) => err);
  return tsc.stdout;
}
