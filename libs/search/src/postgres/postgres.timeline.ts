import { sql } from '@app/database';
import { EntityManager } from 'typeorm';
import type { IndexHorizon, SearchTimeline } from '../search-index.port';
import { CORRECTION_ROWS } from '../wording-rows';

const MESSAGE_COLUMNS = 'idx, role, location_id, at, round';
const MEMORY_COLUMNS = 'memory_id, seq, location_id, at, round, summary, tsv';

/**
 * The PostgreSQL index in fork, rewind and delete (DESIGN §10): rows keyed by campaign, copied with their
 * `tsvector` as they are (no re-parse).
 */
export class PostgresTimeline implements SearchTimeline {
  readonly name = 'search' as const;

  async copy(m: EntityManager, from: string, to: string, at: IndexHorizon): Promise<void> {
    for (const [table, text] of [
      ['search_messages', 'content'],
      ['search_reasoning', 'reasoning'],
    ]) {
      const columns = `${MESSAGE_COLUMNS}, ${text}, tsv`;
      await sql(
        m,
        `INSERT INTO ${table} (campaign_id, ${columns}) SELECT ?, ${columns} FROM ${table} ` +
          'WHERE campaign_id = ? AND idx < ?',
        [to, from, at.messageCount],
      );
    }
    await sql(
      m,
      `INSERT INTO search_memories (campaign_id, ${MEMORY_COLUMNS}) SELECT ?, ${MEMORY_COLUMNS} FROM search_memories ` +
        'WHERE campaign_id = ? AND (seq <= ? OR seq BETWEEN ? AND ?)',
      [to, from, Math.min(at.memoryVersion, CORRECTION_ROWS - 1), CORRECTION_ROWS, CORRECTION_ROWS + at.version],
    );
  }

  async rewind(m: EntityManager, id: string, to: IndexHorizon): Promise<void> {
    for (const table of ['search_messages', 'search_reasoning'])
      await sql(m, `DELETE FROM ${table} WHERE campaign_id = ? AND idx >= ?`, [id, to.messageCount]);
    await sql(m, 'DELETE FROM search_memories WHERE campaign_id = ? AND ((seq > ? AND seq < ?) OR seq > ?)', [
      id,
      to.memoryVersion,
      CORRECTION_ROWS,
      CORRECTION_ROWS + to.version,
    ]);
  }

  async remove(m: EntityManager, id: string): Promise<void> {
    for (const table of ['search_messages', 'search_reasoning', 'search_memories'])
      await sql(m, `DELETE FROM ${table} WHERE campaign_id = ?`, [id]);
  }
}
