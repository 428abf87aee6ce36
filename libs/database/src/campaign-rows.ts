import { inTimedSlices } from '@app/common';
import { EntityManager } from 'typeorm';
import { sql, SqlResult } from './raw-sql';

/**
 * Set-based copies and removals of one campaign's rows (DESIGN §10 fork, rewind, delete). The column list
 * comes from the table's TypeORM metadata, so a column added to an entity is copied without anyone
 * remembering to name it here: a fork then still serves what a rebuild of its streams would give.
 */

/** The columns of a mapped table, or null when no entity maps it (a table a later migration adds). */
export function tableColumns(m: EntityManager, table: string): string[] | null {
  const meta = m.connection.entityMetadatas.find((e) => e.tableName === table);
  return meta ? meta.columns.map((c) => c.databaseName) : null;
}

export interface RowCopy {
  table: string;
  /** The column holding the campaign id (default `campaign_id`). */
  key?: string;
  from: string;
  to: string;
  /** Extra conditions on the source rows, `?` placeholders bound from `params`. */
  where?: string;
  params?: unknown[];
  /** Column → SQL expression over the source row, used instead of the column (only for columns that exist). */
  set?: Record<string, string>;
  /** Parameters of the `set` expressions, bound before `params` (in the order the columns are listed). */
  setParams?: Record<string, unknown[]>;
  /**
   * §13: copy the rows whose dense integer `column` (a message index, a stream version) is below `below` in timed
   * slices (the first of COPY_SLICE_ROWS), giving the event loop back between them: one statement over 5,000 messages
   * held it ≈ 100 ms. The slice's range must be the column's only bound (leave it out of `where`): SQLite seeks an
   * index with one upper bound per column, and with a second one (`"idx" < n`) it took that one, so each slice of a
   * 1M-event fork walked the rest of the campaign's messages (45 ms a statement; the slices' pacing then shrank them
   * to a row each).
   */
  slice?: { column: string; below: number };
}

/** Rows of the first statement of a sliced copy (see RowCopy.slice); the next follow its pace, up to the most. */
export const COPY_SLICE_ROWS = 200;
const COPY_SLICE_MAX = 500;

/**
 * `INSERT INTO t (…) SELECT … FROM t WHERE key = from AND …`: one statement (one a slice, when sliced); 0 when the
 * table is not mapped.
 */
export async function copyCampaignRows(m: EntityManager, c: RowCopy): Promise<number> {
  const columns = tableColumns(m, c.table);
  if (!columns) return 0;
  const key = c.key ?? 'campaign_id';
  const bound: unknown[] = [];
  const select = columns.map((col) => {
    if (col === key) {
      bound.push(c.to);
      return '?';
    }
    const expr = c.set?.[col];
    if (expr === undefined) return `"${col}"`;
    bound.push(...(c.setParams?.[col] ?? []));
    return expr;
  });
  const text =
    `INSERT INTO "${c.table}" (${columns.map((col) => `"${col}"`).join(', ')}) SELECT ${select.join(', ')} ` +
    `FROM "${c.table}" WHERE "${key}" = ?${c.where ? ` AND (${c.where})` : ''}`;
  const params = [...bound, c.from, ...(c.params ?? [])];
  if (!c.slice) return (await sql(m, text, params)).changes;
  let changes = 0;
  const sliced = `${text} AND "${c.slice.column}" >= ? AND "${c.slice.column}" < ?`;
  await inTimedSlices(c.slice.below, { first: COPY_SLICE_ROWS, max: COPY_SLICE_MAX }, async (lo, hi) => {
    changes += (await sql(m, sliced, [...params, lo, hi])).changes;
  });
  return changes;
}

/** `DELETE FROM t WHERE key = id AND …`; nothing when the table is not mapped. */
export async function deleteCampaignRows(
  m: EntityManager,
  table: string,
  campaignId: string,
  where?: string,
  params: unknown[] = [],
  key = 'campaign_id',
): Promise<SqlResult<unknown>> {
  if (!tableColumns(m, table)) return { rows: [], changes: 0 };
  const text = `DELETE FROM "${table}" WHERE "${key}" = ?${where ? ` AND (${where})` : ''}`;
  return sql(m, text, [campaignId, ...params]);
}

/** `UPDATE t SET col = NULL WHERE key = id AND col > bound` for each existing column (an undone mark). */
export async function clearAbove(
  m: EntityManager,
  table: string,
  campaignId: string,
  columns: string[],
  bound: number,
): Promise<void> {
  const existing = tableColumns(m, table) ?? [];
  for (const col of columns.filter((c) => existing.includes(c)))
    await sql(m, `UPDATE "${table}" SET "${col}" = NULL WHERE "campaign_id" = ? AND "${col}" > ?`, [campaignId, bound]);
}

/** `CASE WHEN col > ? THEN NULL ELSE col END` for a `set` entry: marks made after the fork point are not copied. */
export const nullAbove = (col: string) => `CASE WHEN "${col}" > ? THEN NULL ELSE "${col}" END`;
