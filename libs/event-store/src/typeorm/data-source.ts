import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DataSource, DataSourceOptions, MixedList } from 'typeorm';

export interface DataSourceSpec {
  database: { type: 'sqlite'; path: string } | { type: 'postgres'; url: string };
  entities: MixedList<Function>;
  migrations: MixedList<Function>;
  /** Tests may build the schema from entities; the service always runs migrations. */
  synchronize?: boolean;
}

/** A TypeORM DataSource for SQLite (better-sqlite3, WAL) or PostgreSQL. */
export function createDataSource(spec: DataSourceSpec): DataSource {
  const common = { entities: spec.entities, migrations: spec.migrations, synchronize: spec.synchronize ?? false, logging: false };
  if (spec.database.type === 'postgres') {
    return new DataSource({ type: 'postgres', url: spec.database.url, ...common, migrationsTransactionMode: 'each' } as DataSourceOptions);
  }
  const path = spec.database.path;
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  return new DataSource({
    type: 'better-sqlite3',
    database: path,
    enableWAL: path !== ':memory:',
    // NORMAL is durable in WAL mode across process crashes (only a power loss can drop the last commit).
    prepareDatabase: (db: { pragma(s: string): unknown }) => {
      db.pragma('busy_timeout = 5000');
      db.pragma('synchronous = NORMAL');
    },
    ...common,
  } as DataSourceOptions);
}
