import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WalCheckpointer } from './wal-checkpointer';

/** The slice of better-sqlite3 this spec uses (the package ships no types). */
interface SqliteDb {
  prepare(sql: string): { run(...params: unknown[]): unknown; get(): unknown };
  exec(sql: string): void;
  pragma(sql: string): unknown;
  transaction(fn: () => void): () => void;
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- no types: the slice above
const Sqlite = require('better-sqlite3') as new (path: string) => SqliteDb;

describe('WalCheckpointer (§13: checkpoints off the event loop)', () => {
  it("folds the service connection's WAL into the database file from its own thread", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lk-wal-'));
    const path = join(dir, 'db.sqlite');
    const db = new Sqlite(path);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('wal_autocheckpoint = 0');
      db.exec('CREATE TABLE t (x TEXT)');
      const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
      db.transaction(() => {
        for (let i = 0; i < 2_000; i++) insert.run('x'.repeat(1_000));
      })();
      const before = statSync(path).size;
      const checkpointer = new WalCheckpointer(path, 20);
      const deadline = Date.now() + 10_000;
      while (statSync(path).size <= before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await checkpointer.stop();
      expect(statSync(path).size).toBeGreaterThan(before + 1_000_000);
      expect(db.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 2_000 });
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
