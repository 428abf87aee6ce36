import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DataSource, DataSourceOptions, MixedList } from 'typeorm';

export interface DataSourceSpec {
  database: { type: 'sqlite'; path: string } | { type: 'postgres'; url: string };
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- TypeORM's own type for entity classes
  entities: MixedList<Function>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- and for migration classes
  migrations: MixedList<Function>;
  /** Tests may build the schema from entities; the service always runs migrations. */
  synchronize?: boolean;
  /** PostgreSQL: most connections the pool opens (pg's default, 10, when unset). */
  poolSize?: number;
}

/** A TypeORM DataSource for SQLite (better-sqlite3, WAL) or PostgreSQL. */
export function createDataSource(spec: DataSourceSpec): DataSource {
  const common = {
    entities: spec.entities,
    migrations: spec.migrations,
    synchronize: spec.synchronize ?? false,
    logging: false,
  };
  if (spec.database.type === 'postgres') {
    return new DataSource({
      type: 'postgres',
      url: spec.database.url,
      ...(spec.poolSize ? { poolSize: spec.poolSize } : {}),
      ...common,
      migrationsTransactionMode: 'each',
    } as DataSourceOptions);
  }
  const path = spec.database.path;
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  return bindIntegers(
    new DataSource({
      type: 'better-sqlite3',
      database: path,
      enableWAL: path !== ':memory:',
      // NORMAL is durable in WAL mode across process crashes (only a power loss can drop the last commit).
      prepareDatabase: (db: { pragma(s: string): unknown }) => {
        db.pragma('busy_timeout = 5000');
        db.pragma('synchronous = NORMAL');
        // Savepoint journals (one per commit-group member) in memory, never spilled to a temp file: the journal only
        // serves ROLLBACK TO, so durability is unchanged (issue 33: −6 µs of CPU per message in a bare replay).
        db.pragma('temp_store = MEMORY');
      },
      ...common,
    } as DataSourceOptions),
  );
}

type Escape = (
  sql: string,
  parameters: Record<string, unknown>,
  nativeParameters: Record<string, unknown>,
) => [string, unknown[]];

/**
 * TypeORM's SQLite driver pastes numeric parameters into the SQL text, so every new version or index
 * makes a new statement: re-prepared each time and churning the driver's statement cache (the top
 * cost of a write in `npm run bench` profiles). Safe integers go in as BigInt instead, which
 * better-sqlite3 binds as INTEGER — the same value the literal gave, now as a reusable statement.
 */
function bindIntegers(ds: DataSource): DataSource {
  const driver = ds.driver as unknown as { escapeQueryWithParameters: Escape };
  const original = driver.escapeQueryWithParameters.bind(driver);
  driver.escapeQueryWithParameters = (sql, parameters, nativeParameters) =>
    original(
      sql,
      parameters ? Object.fromEntries(Object.entries(parameters).map(([k, v]) => [k, sqliteInteger(v)])) : parameters,
      nativeParameters,
    );
  return ds;
}

/**
 * A parameter as better-sqlite3 should bind it: it binds every JS number as REAL (a TEXT column would
 * store "4.0"), so safe integers — also inside arrays — go in as BigInt, which it binds as INTEGER.
 */
export function sqliteInteger(v: unknown): unknown {
  return typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : Array.isArray(v) ? v.map(sqliteInteger) : v;
}
