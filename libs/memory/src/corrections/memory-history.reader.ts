import { Database, sql } from '@app/database';
import type { EntityManager } from 'typeorm';
import { memoryStatusOf } from './memory.preparer';

export type HistoryReason = 'recorded' | 'revised' | 'corrected' | 'withdrawn' | 'deleted';

export interface MemoryHistoryItem {
  revision: number;
  summary: string;
  origin: 'model' | 'dm';
  reason: HistoryReason;
  /** Game version from which this wording (or status) holds. */
  version: number;
  at: string;
  inputIndexes: number[];
}

interface HistoryRow {
  revision: number | string;
  summary: string;
  origin: string;
  reason: string;
  valid_from: number | string;
  at: string;
  input_indexes: string | null;
}

/**
 * A memory's history (DESIGN §10, `GET …/memories/:memoryId/history`) from `memory_history`, oldest first. `withheld`
 * rows are left out: a withholding is the worker's bookkeeping between a retraction and its revision, not a wording.
 * A wording built from a message retracted by then reads `withdrawn` with no text and no inputs (DESIGN §8 "Retracted
 * text is gone from every read"): only the event log keeps it.
 */
export class MemoryHistoryReader {
  constructor(private readonly db: Database) {}

  /**
   * Null when the campaign has no such memory (a deleted one has a history), or when `viewer` (a witness key) did
   * not witness it: who may see a memory does not change with its wording. `asOf`: only rows valid from ≤ it.
   */
  async history(
    campaignId: string,
    memoryId: string,
    o: { asOf?: number; viewer?: string } = {},
  ): Promise<MemoryHistoryItem[] | null> {
    return this.db.read(async (m) => {
      if ((await memoryStatusOf(m, campaignId, memoryId)) === null) return null;
      if (o.viewer !== undefined) {
        const seen = await sql(
          m,
          'SELECT 1 AS x FROM memory_witnesses WHERE campaign_id = ? AND viewer_id = ? AND memory_id = ?',
          [campaignId, o.viewer, memoryId],
        );
        if (seen.rows.length === 0) return null;
      }
      const asOf = o.asOf === undefined ? '' : ' AND valid_from <= ?';
      const { rows } = await sql<HistoryRow>(
        m,
        'SELECT revision, summary, origin, reason, valid_from, at, input_indexes FROM memory_history ' +
          `WHERE campaign_id = ? AND memory_id = ? AND reason <> 'withheld'${asOf} ORDER BY valid_from, seq`,
        o.asOf === undefined ? [campaignId, memoryId] : [campaignId, memoryId, o.asOf],
      );
      // As of a version before the memory was recorded, it did not exist yet.
      if (rows.length === 0 && o.asOf !== undefined) return null;
      const retracted = await retractedIndexes(m, campaignId, o.asOf);
      return rows.map(toItem).map((item) => (item.inputIndexes.some((i) => retracted.has(i)) ? withdrawn(item) : item));
    });
  }
}

/** Indexes of the campaign's messages retracted at `asOf` (now when absent). */
async function retractedIndexes(m: EntityManager, campaignId: string, asOf?: number): Promise<Set<number>> {
  const { rows } = await sql<{ idx: number | string }>(
    m,
    'SELECT idx FROM messages WHERE campaign_id = ? AND retracted_version IS NOT NULL' +
      (asOf === undefined ? '' : ' AND retracted_version <= ?'),
    asOf === undefined ? [campaignId] : [campaignId, asOf],
  );
  return new Set(rows.map((r) => Number(r.idx)));
}

const withdrawn = (item: MemoryHistoryItem): MemoryHistoryItem => ({
  ...item,
  summary: '',
  reason: 'withdrawn',
  inputIndexes: [],
});

function toItem(r: HistoryRow): MemoryHistoryItem {
  return {
    revision: Number(r.revision),
    summary: r.summary,
    origin: r.origin === 'dm' ? 'dm' : 'model',
    reason: r.reason as HistoryReason,
    version: Number(r.valid_from),
    at: r.at,
    inputIndexes: r.input_indexes ? (JSON.parse(r.input_indexes) as number[]) : [],
  };
}
