import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, freePort, SERVICE_MAIN } from '../../support/service-process';

jest.setTimeout(60_000);
// Nothing here depends on the database: the PostgreSQL pass of `npm test` (TEST_DATABASE_URL) need not repeat it.
const suite = process.env.TEST_DATABASE_URL ? describe.skip : describe;

/** Starts the built service and waits for it to exit (or kills it after `ms`). */
function start(env: Record<string, string>, ms = 15_000): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [SERVICE_MAIN],
      { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', BOOT_CACHE: 'off', ...env }, timeout: ms },
      (err, _stdout, stderr) => resolve({ code: child.exitCode ?? (err ? -1 : 0), stderr }),
    );
  });
}

/** DESIGN §14: a start that cannot happen says why in one line, exits non-zero, and prints no stack trace. */
suite('a start that cannot happen', () => {
  let dir: string;
  let holder: Server;
  let busyPort: number;
  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'lk-startup-'));
    busyPort = await freePort();
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(busyPort, '0.0.0.0', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => holder.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const expectOneLine = (res: { code: number | null; stderr: string }, pattern: RegExp) => {
    expect(res.code).toBe(1);
    expect(res.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(pattern)]);
    expect(res.stderr).not.toMatch(/^\s+at /m);
  };

  it('on a busy port names the port and PORT', async () => {
    const res = await start({ PORT: String(busyPort), DATABASE_URL: `sqlite:${join(dir, 'busy.db')}` });
    expectOneLine(
      res,
      new RegExp(`^Lorekeeper cannot start: port ${busyPort} on 0\\.0\\.0\\.0 is already in use.*PORT=`),
    );
  });

  it('on a database path under a file, a folder as the file, or a file that is not SQLite names DATABASE_URL', async () => {
    writeFileSync(join(dir, 'plain-file'), 'x');
    writeFileSync(join(dir, 'notes.db'), 'not a database, just some notes a user left here by mistake\n');
    const port = String(await freePort());
    const cases: [string, RegExp][] = [
      [
        join(dir, 'plain-file', 'lk.db'),
        /cannot open the database file .*plain-file.*part of its folder path is a file/,
      ],
      [dir, /cannot open the database file .* \(it is a folder\)/],
      [join(dir, 'notes.db'), /the database file .*notes\.db is not a SQLite database/],
    ];
    for (const [path, pattern] of cases) {
      const res = await start({ PORT: port, DATABASE_URL: `sqlite:${path}` });
      expectOneLine(res, new RegExp(`^Lorekeeper cannot start: ${pattern.source}.*DATABASE_URL=sqlite:`));
    }
  });
});
