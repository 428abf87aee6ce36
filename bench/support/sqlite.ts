import { createDataSource } from '@app/database';
import { DataSource } from 'typeorm';
import { ENTITIES } from '../../apps/memory-service/src/core.module';
import { MIGRATIONS } from '../../apps/memory-service/src/migrations';

/** The slice of better-sqlite3 the benchmarks use (the package ships no types; @types is not a dependency). */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): any;
  all(...params: unknown[]): any[];
}

export interface SqliteDb {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  pragma(sql: string): unknown;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  close(): void;
}

type SqliteCtor = new (path: string, options?: { readonly?: boolean; fileMustExist?: boolean }) => SqliteDb;

/** Opens a SQLite file with better-sqlite3 (the driver TypeORM uses in the service). */
export function openSqlite(path: string, options?: { readonly?: boolean }): SqliteDb {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Database = require('better-sqlite3') as SqliteCtor;
  return new Database(path, options);
}

/** A TypeORM data source on a SQLite file with the service's entities, migrated to the latest schema. */
export async function openServiceDb(path: string): Promise<DataSource> {
  const ds = createDataSource({ database: { type: 'sqlite', path }, entities: ENTITIES, migrations: MIGRATIONS });
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  return ds;
}
