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

/**
 * One hand-written statement (`?` placeholders, portable SQL) on the manager's connection — for the
 * hot paths, where TypeORM's query builder cost more CPU than SQLite itself (`npm run bench` profile).
 * SQLite reuses the driver's prepared statement for the same text; no entity mapping happens.
 */
export async function sql<T = Record<string, unknown>>(m: EntityManager, text: string, params: unknown[] = []): Promise<SqlResult<T>> {
  const postgres = m.connection.options.type === 'postgres';
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
  for (const row of rows) for (const c of columns) params.push((row as Record<string, unknown>)[c.propertyName] ?? null);
  return sql(m, text, params);
}
