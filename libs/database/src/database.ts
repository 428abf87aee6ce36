import { AsyncMutex } from '@app/common';
import { DataSource, EntityManager } from 'typeorm';
import { sql } from './raw-sql';

interface Job {
  fn: (manager: EntityManager) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/** Most transactions one SQLite commit carries: bounds how long the last of them waits. */
const MAX_GROUP = 32;

type Parked = () => Promise<unknown>;

/** What lives as long as one transaction run by `Database` (on SQLite: one commit group). */
interface TransactionScope {
  /** Where `atGroupEnd` parks the running member's work; null when it runs at once. */
  parked: Parked[] | null;
  locals: Map<object, unknown>;
}

const scopes = new WeakMap<EntityManager, TransactionScope>();

/**
 * A value shared by everything that runs in the transaction `m` — on SQLite, by all the members of its
 * commit group — and dropped with it; a fresh `init()` for a transaction `Database` does not run.
 * Every value is dropped too when a member of the group fails and its savepoint is rolled back, so
 * none outlives writes that were undone: what a member finds here, the database still holds.
 */
export function transactionLocal<T>(m: EntityManager, key: object, init: () => T): T {
  const scope = scopes.get(m);
  if (!scope) return init();
  if (!scope.locals.has(key)) scope.locals.set(key, init());
  return scope.locals.get(key) as T;
}

/** Runs `fn` with a transaction scope on its manager. */
async function scoped<T>(m: EntityManager, fn: (scope: TransactionScope) => Promise<T>): Promise<T> {
  const scope: TransactionScope = { parked: null, locals: new Map() };
  scopes.set(m, scope);
  try {
    return await fn(scope);
  } finally {
    scopes.delete(m);
  }
}

/**
 * Runs `work` inside the caller's transaction `m` — at once, or, when `m` carries a SQLite commit
 * group, after the caller's savepoint is released and before the group's COMMIT, in the order parked.
 * For writes nothing later in the transaction reads, whose cost depends on how often they are flushed:
 * FTS5 writes its pending index as a new segment at every SAVEPOINT and RELEASE, so full-text rows
 * written inside each transaction's savepoint cost ≈ 1.5× more CPU per message than the same rows
 * written once per group (bench: bare better-sqlite3 replay of a message write). Work parked by a
 * transaction that fails is dropped with its savepoint; work that fails fails the whole group, as a
 * failed COMMIT does (nobody has been answered yet; nothing of the group is kept).
 */
export async function atGroupEnd(m: EntityManager, work: Parked): Promise<void> {
  const parked = scopes.get(m)?.parked;
  if (parked) parked.push(work);
  else await work();
}

/**
 * The one way to run a transaction. SQLite has a single connection (and one writer), so its
 * transactions are queued in-process — and those that queued up while one ran share the next commit
 * (group commit: one BEGIN/COMMIT and one WAL append for all of them, each in its own SAVEPOINT, so
 * one that fails rolls back alone, and nobody is answered before the commit that makes it durable;
 * `atGroupEnd` work runs after the last savepoint). PostgreSQL relies on the database alone (DESIGN §9).
 */
export class Database {
  private readonly mutex = new AsyncMutex();
  private readonly queue: Job[] = [];
  private draining = false;
  readonly dialect: 'sqlite' | 'postgres';

  constructor(readonly dataSource: DataSource) {
    this.dialect = dataSource.options.type === 'postgres' ? 'postgres' : 'sqlite';
  }

  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  transaction<T>(fn: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (this.dialect === 'postgres') return this.dataSource.transaction((m) => scoped(m, () => fn(m)));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      this.schedule();
    });
  }

  /**
   * One group per turn of the mutex, so reads queued meanwhile go first and never starve. The group
   * starts after the event loop's current I/O phase: requests already read from their sockets reach
   * `transaction` first and share the commit (without it every write ran alone, because a transaction
   * on the synchronous driver never yields to I/O).
   */
  private schedule(): void {
    if (this.draining) return;
    this.draining = true;
    setImmediate(() => this.startGroup());
  }

  private startGroup(): void {
    void this.mutex.run(async () => {
      try {
        await this.commitGroup(this.queue.splice(0, MAX_GROUP));
      } finally {
        this.draining = false;
        if (this.queue.length > 0) this.schedule();
      }
    });
  }

  private async commitGroup(group: Job[]): Promise<void> {
    if (group.length === 1) {
      const [job] = group;
      await this.dataSource.transaction((m) => scoped(m, () => job.fn(m))).then(job.resolve, job.reject);
      return;
    }
    const settled: Array<{ ok: true; value: unknown } | { ok: false; err: unknown }> = [];
    try {
      await this.dataSource.transaction((m) =>
        scoped(m, async (scope) => {
          const parked: Parked[] = [];
          for (const job of group) {
            const own: Parked[] = [];
            scope.parked = own;
            await sql(m, 'SAVEPOINT lk_group');
            try {
              settled.push({ ok: true, value: await job.fn(m) });
              await sql(m, 'RELEASE lk_group');
              parked.push(...own);
            } catch (err) {
              await sql(m, 'ROLLBACK TO lk_group');
              await sql(m, 'RELEASE lk_group');
              scope.locals.clear();
              settled.push({ ok: false, err });
            }
          }
          scope.parked = null;
          for (const work of parked) await work();
        }),
      );
    } catch (err) {
      // The commit itself failed: nothing of the group is durable.
      for (const job of group) job.reject(err);
      return;
    }
    group.forEach((job, i) => {
      const s = settled[i];
      if (s.ok) job.resolve(s.value);
      else job.reject(s.err);
    });
  }

  /** Reads that must not interleave with a half-done SQLite transaction on the shared connection. */
  read<T>(fn: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (this.dialect === 'postgres') return fn(this.dataSource.manager);
    return this.mutex.run(() => fn(this.dataSource.manager));
  }
}

export const DATABASE = Symbol('DATABASE');

/** True when the error is a UNIQUE constraint violation on either dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; driverError?: { code?: string }; message?: string };
  const code = e?.driverError?.code ?? e?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
