import { EntityManager, EntityTarget, QueryRunner } from 'typeorm';
import { sqliteInteger } from './data-source';

/** Rows a statement returned and rows it changed. */
export interface SqlResult<T> {
  rows: T[];
  changes: number;
}

const pgText = new Map<string, string>();

/** `?` placeholders as PostgreSQL's `$1, $2, …` (our hand-written SQL has no `?` inside literals). */
function forPostgres(text: string): string {
  let out = pgText.get(text);
  if (out === undefined) {
    let n = 0;
    out = text.replace(/\?/g, () => `$${++n}`);
    if (pgText.size < 10_000) pgText.set(text, out);
  }
  return out;
}

/** The slice of better-sqlite3's API the hot path uses. */
interface SqliteStatement {
  reader: boolean;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { changes: number };
}
interface SqliteConnection {
  prepare(text: string): SqliteStatement;
}

/** Prepared statements per connection; most recently used kept, the rest finalized by GC. */
const STATEMENT_CACHE_SIZE = 500;
const statements = new WeakMap<SqliteConnection, Map<string, SqliteStatement>>();

function prepared(conn: SqliteConnection, text: string): SqliteStatement {
  let cache = statements.get(conn);
  if (!cache) statements.set(conn, (cache = new Map()));
  let stmt = cache.get(text);
  if (stmt) {
    cache.delete(text);
  } else {
    stmt = conn.prepare(text);
    if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  }
  cache.set(text, stmt);
  return stmt;
}

/**
 * One hand-written statement (`?` placeholders, portable SQL) on the manager's connection — for the
 * hot paths, where TypeORM's query builder cost more CPU than SQLite itself (`npm run bench` profile).
 * On SQLite it runs synchronously on the driver's one connection (the one TypeORM's transactions
 * use) from a prepared-statement cache, skipping the query runner's per-call promises and
 * subscriber broadcasts; on PostgreSQL it goes through the transaction's query runner.
 */
export async function sql<T = Record<string, unknown>>(
  m: EntityManager,
  text: string,
  params: unknown[] = [],
): Promise<SqlResult<T>> {
  const postgres = m.connection.options.type === 'postgres';
  if (!postgres) {
    const conn = (m.connection.driver as unknown as { databaseConnection?: SqliteConnection }).databaseConnection;
    if (conn) {
      const stmt = prepared(conn, text);
      const bound = params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : sqliteInteger(p)));
      if (stmt.reader) return { rows: stmt.all(...bound) as T[], changes: 0 };
      return { rows: [], changes: stmt.run(...bound).changes };
    }
  }
  const own: QueryRunner | undefined = m.queryRunner ? undefined : m.connection.createQueryRunner();
  const runner = m.queryRunner ?? own!;
  try {
    const bound = postgres ? params : params.map(sqliteInteger);
    const res = await runner.query(postgres ? forPostgres(text) : text, bound, true);
    return { rows: (res.records ?? []) as T[], changes: res.affected ?? 0 };
  } finally {
    // better-sqlite3 hands out its one shared runner, which must not be released.
    if (own && postgres) await own.release();
  }
}

const insertText = new Map<string, string>();

/**
 * A multi-row INSERT of plain rows (keyed by entity property) into an entity's table, columns taken
 * from the entity's TypeORM metadata; generated columns are left to the database.
 */
export async function insertRows(
  m: EntityManager,
  entity: EntityTarget<unknown>,
  rows: object[],
  options: { ignoreConflicts?: boolean; returning?: string } = {},
): Promise<SqlResult<Record<string, unknown>>> {
  if (rows.length === 0) return { rows: [], changes: 0 };
  const meta = m.connection.getMetadata(entity);
  const columns = meta.columns.filter((c) => !c.isGenerated);
  const key = `${meta.tableName}|${rows.length}|${options.ignoreConflicts ? 1 : 0}|${options.returning ?? ''}`;
  let text = insertText.get(key);
  if (text === undefined) {
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    text =
      `INSERT INTO "${meta.tableName}" (${columns.map((c) => `"${c.databaseName}"`).join(', ')}) VALUES ` +
      Array.from({ length: rows.length }, () => tuple).join(', ') +
      (options.ignoreConflicts ? ' ON CONFLICT DO NOTHING' : '') +
      (options.returning ? ` RETURNING ${options.returning}` : '');
    insertText.set(key, text);
  }
  const params: unknown[] = [];
  for (const row of rows)
    for (const c of columns) params.push((row as Record<string, unknown>)[c.propertyName] ?? null);
  return sql(m, text, params);
}
