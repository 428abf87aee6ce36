import { Database } from '@app/event-store';
import { EntityManager } from 'typeorm';

/**
 * The memory worker's hot statements as plain parameterised SQL (written with `?`, numbered for
 * PostgreSQL): they run once or more per trigger, where TypeORM's query building showed up in profiles.
 */
export class WorkerSql {
  private readonly numbered: boolean;

  constructor(private readonly db: Database) {
    this.numbered = db.dialect === 'postgres';
  }

  /** The campaign's version and checkpoint, without its state document. */
  async progress(campaignId: string): Promise<{ version: number; processedVersion: number } | null> {
    const rows = await this.db.read((m) => this.query<{ version: number | string; processed_version: number | string }>(m, 'SELECT version, processed_version FROM campaigns WHERE id = ?', [campaignId]));
    return rows[0] ? { version: Number(rows[0].version), processedVersion: Number(rows[0].processed_version) } : null;
  }

  /** Moves the checkpoint from `from` to `to`; the memory stream's version, or null when the checkpoint was elsewhere. */
  async moveCheckpoint(m: EntityManager, campaignId: string, from: number, to: number): Promise<number | null> {
    const rows = await this.query<{ memory_version: number | string }>(m, 'UPDATE campaigns SET processed_version = ? WHERE id = ? AND processed_version = ? RETURNING memory_version', [to, campaignId, from]);
    return rows[0] ? Number(rows[0].memory_version) : null;
  }

  /** Every scope cursor of the campaign, keyed `scope:subject`. */
  async cursors(campaignId: string): Promise<Map<string, number>> {
    const rows = await this.db.read((m) => this.query<{ scope: string; subject_id: string; value: number | string }>(m, 'SELECT scope, subject_id, value FROM memory_cursors WHERE campaign_id = ?', [campaignId]));
    return new Map(rows.map((r) => [`${r.scope}:${r.subject_id}`, Number(r.value)]));
  }

  /** The rows, whatever the statement (unstructured results of an UPDATE … RETURNING differ by driver). */
  private async query<T>(m: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
    let n = 0;
    const result: unknown[] = await m.query(this.numbered ? sql.replace(/\?/g, () => `$${++n}`) : sql, params);
    // TypeORM's PostgreSQL driver answers an UPDATE with [rows, rowCount]; rows are never arrays themselves.
    return (Array.isArray(result[0]) ? result[0] : result) as T[];
  }
}
