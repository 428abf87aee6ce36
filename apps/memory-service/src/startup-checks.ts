import { closeSync, mkdirSync, openSync, readSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import type { AppConfig } from '@app/common';

/**
 * What a person starting the service should read when it cannot start for a reason of the machine, not of the
 * code (DESIGN §14): one line naming the cause and the setting to change, never a stack trace.
 */
export class StartupError extends Error {}

/** The file-system errors a wrong DATABASE_URL gives, in words. */
const FS_REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a folder',
  ENOTDIR: 'a part of its folder path is a file',
  EEXIST: 'a part of its folder path is a file',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
};

const SQLITE_HEADER = 'SQLite format 3\0';

/**
 * The SQLite file can be created or opened for writing, and is a SQLite database if it has content. Checked
 * before Nest boots, where the same faults surface as a logged stack from deep inside the driver.
 */
export function checkDatabasePath(config: AppConfig): void {
  if (config.database.type !== 'sqlite' || config.database.path === ':memory:') return;
  const path = config.database.path;
  const fix = 'set DATABASE_URL=sqlite:<a writable file>';
  try {
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(path, 'a+');
    try {
      const head = Buffer.alloc(SQLITE_HEADER.length);
      const read = readSync(fd, head, 0, head.length, 0);
      if (read > 0 && head.toString('latin1', 0, read) !== SQLITE_HEADER.slice(0, read))
        throw new StartupError(`the database file ${path} is not a SQLite database; ${fix}`);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    if (err instanceof StartupError) throw err;
    const e = err as NodeJS.ErrnoException;
    const why = (e.code && FS_REASONS[e.code]) ?? e.code ?? e.message;
    throw new StartupError(`cannot open the database file ${path} (${why}); ${fix}`);
  }
}

/** The listen error a person can fix (a busy or forbidden port) as one line; anything else is not ours to word. */
export function describeListenError(err: unknown, host: string, port: number): StartupError | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE')
    return new StartupError(`port ${port} on ${host} is already in use; stop what holds it or set PORT=<another port>`);
  if (code === 'EACCES')
    return new StartupError(`not allowed to listen on port ${port} on ${host}; set PORT=<a port above 1023>`);
  if (code === 'EADDRNOTAVAIL') return new StartupError(`HOST=${host} is not an address of this machine`);
  return undefined;
}

/**
 * Binds and releases the port before the boot, so a busy port is told in one line before Nest logs its own
 * error (a port taken in between still reaches describeListenError after listen).
 */
export async function checkPort(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err) => reject(describeListenError(err, host, port) ?? err));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
