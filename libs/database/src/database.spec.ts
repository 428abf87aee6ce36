import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';
import { createDataSource } from './data-source';
import { atGroupEnd, Database, transactionLocal } from './database';
import { insertRows, sql } from './raw-sql';

@Entity('ledger')
class Ledger {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'integer' })
  amount: number;

  @Column({ type: 'varchar', length: 40 })
  note: string;
}

const ids = async (db: Database) =>
  (await db.read((m) => sql<{ id: string }>(m, 'SELECT "id" FROM "ledger" ORDER BY "id"'))).rows.map((r) => r.id);

describe('Database on SQLite: transactions that queue up share one commit, and each still stands alone', () => {
  let dir: string;
  let ds: DataSource;
  let db: Database;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lorekeeper-db-'));
    ds = createDataSource({
      database: { type: 'sqlite', path: join(dir, 'db.sqlite') },
      entities: [Ledger],
      migrations: [],
      synchronize: true,
    });
    await ds.initialize();
    db = new Database(ds);
  });
  afterEach(async () => {
    await ds.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits every transaction of a burst, rolls back only the one that failed, and answers each caller', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        db.transaction(async (m) => {
          await insertRows(m, Ledger, [{ id: `t${String(i).padStart(2, '0')}`, amount: i, note: 'first' }]);
          if (i === 7 || i === 33) throw new Error(`boom ${i}`);
          await insertRows(m, Ledger, [{ id: `t${String(i).padStart(2, '0')}b`, amount: i, note: 'second' }]);
          return i;
        }),
      ),
    );
    expect(
      results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason)),
    ).toEqual(['Error: boom 7', 'Error: boom 33']);
    expect(
      results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<number>).value),
    ).toHaveLength(38);
    const stored = await ids(db);
    expect(stored).toHaveLength(76);
    expect(stored).not.toContain('t07');
    expect(stored).not.toContain('t33');
    expect(stored).toContain('t08b');
  });

  it('sees, within a burst, what an earlier transaction of the same commit wrote', async () => {
    const seen = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        db.transaction(async (m) => {
          const before = (await sql<{ n: number }>(m, 'SELECT COUNT(*) AS "n" FROM "ledger"')).rows[0].n;
          await insertRows(m, Ledger, [{ id: `s${i}`, amount: i, note: 'x' }]);
          return before;
        }),
      ),
    );
    expect(seen).toEqual([0, 1, 2, 3, 4]);
  });

  it('lets a read in between writers that keep coming (no starvation)', async () => {
    const write = (i: number) => db.transaction((m) => insertRows(m, Ledger, [{ id: `w${i}`, amount: i, note: 'w' }]));
    const first = Array.from({ length: 100 }, (_, i) => write(i));
    await first[0]; // the first group (32) committed, the next one is queued
    const read = db.read(async (m) => (await sql<{ n: number }>(m, 'SELECT COUNT(*) AS "n" FROM "ledger"')).rows[0].n);
    const more = Array.from({ length: 100 }, (_, i) => write(100 + i));
    await Promise.all([...first, ...more]);
    const count = await read;
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThan(100);
    expect(await ids(db)).toHaveLength(200);
  });

  it('starts a group after the current I/O phase, so transactions begun by separate callbacks of one phase share a commit', async () => {
    const commits = jest.spyOn(ds, 'transaction');
    // Like requests read from five sockets in one poll phase: each callback begins its own transaction.
    const arrivals = Array.from(
      { length: 5 },
      (_, i) =>
        new Promise((resolve) =>
          setImmediate(() =>
            resolve(db.transaction((m) => insertRows(m, Ledger, [{ id: `b${i}`, amount: i, note: 'b' }]))),
          ),
        ),
    );
    await Promise.all(arrivals);
    expect(commits).toHaveBeenCalledTimes(1);
    // A burst larger than a group: 40 = 32 + 8.
    commits.mockClear();
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        db.transaction((m) => insertRows(m, Ledger, [{ id: `c${i}`, amount: i, note: 'c' }])),
      ),
    );
    expect(commits).toHaveBeenCalledTimes(2);
    expect(await ids(db)).toHaveLength(45);
  });

  it('runs work parked with atGroupEnd after the last savepoint of the group, in order, in the same commit, without that of a failed transaction', async () => {
    const log: string[] = [];
    const commits = jest.spyOn(ds, 'transaction');
    const results = await Promise.allSettled(
      Array.from({ length: 4 }, (_, i) =>
        db.transaction(async (m) => {
          await insertRows(m, Ledger, [{ id: `p${i}`, amount: i, note: 'row' }]);
          await atGroupEnd(m, async () => {
            log.push(`parked ${i}`);
            await insertRows(m, Ledger, [{ id: `p${i}-index`, amount: i, note: 'index' }]);
          });
          log.push(`ran ${i}`);
          if (i === 2) throw new Error('boom 2');
          return i;
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(log).toEqual(['ran 0', 'ran 1', 'ran 2', 'ran 3', 'parked 0', 'parked 1', 'parked 3']);
    expect(commits).toHaveBeenCalledTimes(1);
    expect(await ids(db)).toEqual(['p0', 'p0-index', 'p1', 'p1-index', 'p3', 'p3-index']);
  });

  it('runs atGroupEnd work at once in a transaction of its own', async () => {
    const log: string[] = [];
    await db.transaction(async (m) => {
      await atGroupEnd(m, async () => {
        log.push('parked');
      });
      log.push('ran');
    });
    expect(log).toEqual(['parked', 'ran']);
  });

  it('fails the whole group, keeping nothing of it, when parked work fails', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 3 }, (_, i) =>
        db.transaction(async (m) => {
          await insertRows(m, Ledger, [{ id: `f${i}`, amount: i, note: 'row' }]);
          await atGroupEnd(m, async () => {
            // The second transaction's index row collides with the first's: a failure only the group end sees.
            await insertRows(m, Ledger, [{ id: i === 1 ? 'f-index0' : `f-index${i}`, amount: i, note: 'index' }]);
          });
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(await ids(db)).toEqual([]);
    // The connection is usable afterwards, and a new transaction parks nothing of the failed group.
    await db.transaction((m) => insertRows(m, Ledger, [{ id: 'after', amount: 0, note: 'x' }]));
    expect(await ids(db)).toEqual(['after']);
  });

  it('shares a transactionLocal value among the members of one group and starts each group afresh', async () => {
    const key = {};
    const seen = async () =>
      Promise.all(
        Array.from({ length: 3 }, (_, i) =>
          db.transaction(async (m) => {
            const list = transactionLocal(m, key, () => [] as number[]);
            list.push(i);
            return [...list];
          }),
        ),
      );
    expect(await seen()).toEqual([[0], [0, 1], [0, 1, 2]]);
    expect(await seen()).toEqual([[0], [0, 1], [0, 1, 2]]);
    // A member that fails takes every value with its savepoint: the next one starts afresh.
    const afterFailure = await Promise.allSettled(
      Array.from({ length: 3 }, (_, i) =>
        db.transaction(async (m) => {
          transactionLocal(m, key, () => [] as number[]).push(i);
          if (i === 1) throw new Error('boom');
          return [...transactionLocal(m, key, () => [] as number[])];
        }),
      ),
    );
    expect(afterFailure.map((r) => (r.status === 'fulfilled' ? r.value : 'failed'))).toEqual([[0], 'failed', [2]]);
    // Outside a transaction Database runs, nothing is shared.
    const outside = ds.manager;
    transactionLocal(outside, key, () => [1]).push(2);
    expect(transactionLocal(outside, key, () => [1])).toEqual([1]);
  });

  it('binds integers as integers, also into a text column', async () => {
    await db.transaction((m) => insertRows(m, Ledger, [{ id: 'i', amount: 4, note: 4 as unknown as string }]));
    const { rows } = await db.read((m) => sql(m, 'SELECT "amount", typeof("amount") AS "t", "note" FROM "ledger"'));
    expect(rows).toEqual([{ amount: 4, t: 'integer', note: '4' }]);
    const changed = await db.transaction((m) =>
      sql(m, 'UPDATE "ledger" SET "amount" = ? WHERE "id" = ? AND "amount" = ?', [5, 'i', 4]),
    );
    expect(changed.changes).toBe(1);
    const flags = await db.read((m) => sql(m, 'SELECT ? AS "yes", ? AS "no"', [true, false]));
    expect(flags.rows).toEqual([{ yes: 1, no: 0 }]);
  });

  it('keeps answering past the prepared-statement cache (500 distinct statements)', async () => {
    await db.transaction((m) => insertRows(m, Ledger, [{ id: 'k', amount: 7, note: 'k' }]));
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 600; i++) {
        const { rows } = await db.read((m) =>
          sql<{ v: number }>(m, `SELECT "amount" + ${i} AS "v" FROM "ledger" WHERE "id" = ?`, ['k']),
        );
        expect(rows).toEqual([{ v: 7 + i }]);
      }
    }
  });
});
