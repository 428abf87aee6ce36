import { configSchema } from '@app/common';
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, REPO_ROOT } from '../../support/service-process';

jest.setTimeout(300_000);
// Nothing here depends on the database: the PostgreSQL pass of `npm test` (TEST_DATABASE_URL) need not repeat it.
const suite = process.env.TEST_DATABASE_URL ? describe.skip : describe;
const run = promisify(execFile);
const NPM_FLAGS = ['--no-audit', '--no-fund', '--loglevel=error'];

/**
 * DESIGN §14: `npm pack` gives a tarball that `npm i <tarball>` + `npx lorekeeper` starts in an empty folder —
 * SQLite file there, offline summarizer, no keys — with no repository, build step or dev dependency.
 *
 * The install prefers the machine's npm cache (the tarball ships npm-shrinkwrap.json: the locked tree) and skips
 * install scripts: the one that matters, better-sqlite3's, compiles the addon from source when no prebuilt one can
 * be downloaded (a minute of CPU on CI), so the repository's already-built addon of the same version is copied in.
 */
suite('the npm package', () => {
  let dir: string;
  let tarball: string;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lk-package-'));
    const packed = await run('npm', ['pack', '--pack-destination', dir, ...NPM_FLAGS], { cwd: REPO_ROOT });
    tarball = join(dir, packed.stdout.trim().split('\n').pop() ?? '');
    const app = join(dir, 'app');
    await run('mkdir', [app]);
    await run('npm', ['init', '-y', ...NPM_FLAGS], { cwd: app });
    await run('npm', ['install', '--prefer-offline', '--ignore-scripts', ...NPM_FLAGS, tarball], { cwd: app });
    const addon = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
    await run('mkdir', ['-p', join(app, 'node_modules/better-sqlite3/build/Release')]);
    copyFileSync(join(REPO_ROOT, addon), join(app, addon));
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const app = () => join(dir, 'app');

  it('is a small tarball of compiled code, the inspector and the configuration doc; no dev dependency installs', async () => {
    const size = statSync(tarball).size;
    console.log(`lorekeeper tarball: ${(size / 1024).toFixed(0)} kB`);
    expect(size).toBeLessThan(1024 * 1024);
    const { stdout } = await run('tar', ['tzf', tarball]);
    const files = stdout.trim().split('\n');
    expect(files).toEqual(expect.arrayContaining(['package/dist/apps/memory-service/src/cli.js']));
    expect(files.filter((f) => /\.ts$|\.map$|\/test\/|\/bench\/|\.spec\./.test(f))).toEqual([]);
    const installed = readdirSync(join(app(), 'node_modules'));
    for (const dev of ['typescript', 'jest', '@swc', 'eslint', 'orval', 'playwright-core'])
      expect(installed).not.toContain(dev);
  });

  it('`npx lorekeeper --help` lists every setting', async () => {
    const { stdout } = await run('npx', ['--no-install', 'lorekeeper', '--help'], { cwd: app() });
    expect(stdout).toMatch(/^Usage: lorekeeper \[command\]/m);
    expect(stdout).toMatch(/^ {2}start /m);
    const missing = Object.keys(configSchema.shape).filter((name) => !new RegExp(`^ {2}${name} `, 'm').test(stdout));
    expect(missing).toEqual([]);
  });

  it('`lorekeeper` starts in the empty folder with no key: healthy, SQLite file there, a context read', async () => {
    const port = await freePort();
    const started = Date.now();
    child = spawn(join(app(), 'node_modules/.bin/lorekeeper'), [], {
      cwd: app(),
      env: { PATH: process.env.PATH ?? '', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const url = `http://127.0.0.1:${port}`;
    for (;;) {
      const ok = await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (child.exitCode !== null || Date.now() - started > 60_000)
        throw new Error(`did not become healthy:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    console.log(`npx lorekeeper: healthy after ${Date.now() - started} ms`);
    expect(output).toContain('summarizer local');
    expect(existsSync(join(app(), 'data/lorekeeper.db'))).toBe(true);

    const post = (path: string, body: unknown) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post('/v1/campaigns', { id: 'packaged', name: 'Packaged' })).status).toBe(201);
    await post('/v1/campaigns/packaged/messages', { messages: [{ role: 'dm', content: 'The lighthouse is dark.' }] });
    const text = await fetch(`${url}/v1/campaigns/packaged/context?agent=dm`, { headers: { accept: 'text/plain' } });
    expect(await text.text()).toContain('The lighthouse is dark.');
    expect((await fetch(`${url}/inspector`)).status).toBe(200);

    const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('`lorekeeper export` and `lorekeeper import` move the whole database (DESIGN §15) from the package', async () => {
    // The service of the test above has stopped; its SQLite file holds the campaign 'packaged'.
    const env = { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn' };
    await run('npx', ['--no-install', 'lorekeeper', 'export', '--out', 'backup.ndjson'], { cwd: app(), env });
    const lines = readFileSync(join(app(), 'backup.ndjson'), 'utf8').trim().split('\n');
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ format: 'lorekeeper-campaign', campaignId: 'packaged' });
    const copy = { ...env, DATABASE_URL: 'sqlite:./data/copy.db' };
    await run('npx', ['--no-install', 'lorekeeper', 'import', 'backup.ndjson'], { cwd: app(), env: copy });
    expect(existsSync(join(app(), 'data/copy.db'))).toBe(true);
    // An id in use is refused: the second import of the same file fails with a non-zero exit.
    await expect(
      run('npx', ['--no-install', 'lorekeeper', 'import', 'backup.ndjson'], { cwd: app(), env: copy }),
    ).rejects.toThrow();
  });
});
