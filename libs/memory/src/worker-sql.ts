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

/** Statements of the memory projection (inside the worker's transaction). */
export const memorySql = {
  insertMemory: (m: EntityManager, row: MemoryRecord) => insertRows(m, MemoryRecord, [row]),
  upsertCursor: (m: EntityManager, campaignId: string, scope: string, subjectId: string, value: number) =>
    rawRows(
      m,
      'INSERT INTO memory_cursors (campaign_id, scope, subject_id, value) VALUES (?, ?, ?, ?) ON CONFLICT ' +
        '(campaign_id, scope, subject_id) DO UPDATE SET value = excluded.value',
      [campaignId, scope, subjectId, value],
    ),
};

/** The worker's own reads (its checkpoint is CheckpointStore's). */
export class WorkerSql {
  constructor(private readonly db: Database) {}

  /** Every scope cursor of the campaign, keyed `scope:subject`. */
  async cursors(campaignId: string): Promise<Map<string, number>> {
    const rows = await this.db.read((m) =>
      rawRows<{ scope: string; subject_id: string; value: number | string }>(
        m,
        'SELECT scope, subject_id, value FROM memory_cursors WHERE campaign_id = ?',
        [campaignId],
      ),
    );
    return new Map(rows.map((r) => [`${r.scope}:${r.subject_id}`, Number(r.value)]));
  }
}
