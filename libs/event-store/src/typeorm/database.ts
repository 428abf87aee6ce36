import { AsyncMutex } from '@app/common';
import { DataSource, EntityManager } from 'typeorm';

/**
 * The one way to run a transaction. SQLite has a single connection (and one writer), so its
 * transactions are queued in-process; PostgreSQL relies on the database alone (DESIGN §9).
 */
export class Database {
  private readonly mutex = new AsyncMutex();
  readonly dialect: 'sqlite' | 'postgres';

  constructor(readonly dataSource: DataSource) {
    this.dialect = dataSource.options.type === 'postgres' ? 'postgres' : 'sqlite';
  }

  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  transaction<T>(fn: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (this.dialect === 'postgres') return this.dataSource.transaction(fn);
    return this.mutex.run(() => this.dataSource.transaction(fn));
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
