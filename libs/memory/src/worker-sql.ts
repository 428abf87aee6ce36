import { Database, insertRows, sql } from '@app/database';
import { EntityManager } from 'typeorm';
import { MemoryRecord } from './memory.entity';

/**
 * Plain parameterised SQL for the memory worker's hot path (through `sql`, portable `?` placeholders):
 * these run once or more per trigger, where TypeORM's query building showed up in CPU profiles.
 */
export async function rawRows<T>(m: EntityManager, text: string, params: unknown[]): Promise<T[]> {
  return (await sql<T>(m, text, params)).rows;
}

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** Statements of the memory projection (inside the worker's transaction). */
export const memorySql = {
  insertMemory: (m: EntityManager, row: MemoryRecord) => insertRows(m, MemoryRecord, [row]),
  upsertCursor: (m: EntityManager, campaignId: string, scope: string, subjectId: string, value: number) =>
    rawRows(m, 'INSERT INTO memory_cursors (campaign_id, scope, subject_id, value) VALUES (?, ?, ?, ?) ON CONFLICT (campaign_id, scope, subject_id) DO UPDATE SET value = excluded.value', [
      campaignId,
      scope,
      subjectId,
      value,
    ]),
  /** How many of `indexes` are public messages (§8 public view). */
  publicCount: async (m: EntityManager, campaignId: string, indexes: number[]) =>
    Number(
      (
        await rawRows<{ n: number | string }>(
          m,
          `SELECT COUNT(*) AS n FROM messages WHERE campaign_id = ? AND visibility = 'public' AND idx IN (${placeholders(indexes.length)})`,
          [campaignId, ...indexes],
        )
      )[0]?.n ?? 0,
    ),
  /** How many of `indexes` each viewer witnessed. */
  witnessCounts: async (m: EntityManager, campaignId: string, indexes: number[]) =>
    (
      await rawRows<{ viewer_id: string; n: number | string }>(
        m,
        `SELECT viewer_id, COUNT(*) AS n FROM message_witnesses WHERE campaign_id = ? AND idx IN (${placeholders(indexes.length)}) GROUP BY viewer_id`,
        [campaignId, ...indexes],
      )
    ).map((r) => ({ viewerId: r.viewer_id, n: Number(r.n) })),
};

/** The worker's own reads (its checkpoint is CheckpointStore's). */
export class WorkerSql {
  constructor(private readonly db: Database) {}

  /** Every scope cursor of the campaign, keyed `scope:subject`. */
  async cursors(campaignId: string): Promise<Map<string, number>> {
    const rows = await this.db.read((m) => rawRows<{ scope: string; subject_id: string; value: number | string }>(m, 'SELECT scope, subject_id, value FROM memory_cursors WHERE campaign_id = ?', [campaignId]));
    return new Map(rows.map((r) => [`${r.scope}:${r.subject_id}`, Number(r.value)]));
  }
}
