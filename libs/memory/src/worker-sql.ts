import { Database, insertRows, sql } from '@app/database';
import { EntityManager } from 'typeorm';
import { MemoryRecord } from './memory.entity';
import type { Withheld, WithheldSummary } from './triggers/trigger';
import type { MemoryScope } from './memory-events';
import { PUBLIC_SUMMARY_KEY } from './memory-events';

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

const json = (text: string): number[] => JSON.parse(text) as number[];

/** A "Previously" key's viewer: null for everyone's and the public one, else the player of `player:<id>`. */
const viewerOfKey = (key: string): string | null => (key.startsWith('player:') ? key.slice('player:'.length) : null);

/**
 * Plain parameterised SQL for the memory worker's hot path (through `sql`, portable `?` placeholders):
 * these run once or more per trigger, where TypeORM's query building showed up in CPU profiles.
 */
export async function rawRows<T>(m: EntityManager, text: string, params: unknown[]): Promise<T[]> {
  return (await sql<T>(m, text, params)).rows;
}

/**
 * A `memory_history` row copying the memory's row as it now stands (`changed_version` is where it holds from).
 * `searchSeq` null: the wording did not change, its full-text row is the previous entry's.
 */
const HISTORY =
  'INSERT INTO memory_history (campaign_id, memory_id, seq, valid_from, revision, status, reason, origin, summary,' +
  ' input_indexes, memory_version, search_seq, at) SELECT r.campaign_id, r.id, COALESCE((SELECT MAX(h.seq) FROM' +
  ' memory_history h WHERE h.campaign_id = r.campaign_id AND h.memory_id = r.id), 0) + 1, r.changed_version,' +
  ' r.revision, r.status, ?, r.origin, r.summary, r.input_indexes, CAST(? AS integer), COALESCE(CAST(? AS integer),' +
  ' (SELECT h.search_seq FROM memory_history h WHERE h.campaign_id = r.campaign_id AND h.memory_id = r.id' +
  ' ORDER BY h.seq DESC LIMIT 1), r.memory_version), ? FROM memories r WHERE r.campaign_id = ? AND r.id = ?';

/** What a history entry records beyond the row: why, the memory event behind it, its full-text row, when. */
export interface HistoryEntry {
  reason: 'recorded' | 'withheld' | 'revised' | 'corrected' | 'withdrawn' | 'deleted';
  memoryVersion: number | null;
  searchSeq: number | null;
  at: string;
}

/** Statements of the memory projection (inside the worker's transaction). */
export const memorySql = {
  history: (m: EntityManager, campaignId: string, memoryId: string, h: HistoryEntry) =>
    rawRows(m, HISTORY, [h.reason, h.memoryVersion, h.searchSeq, h.at, campaignId, memoryId]),
  /** §10: withheld from reads from game version `version` on, until the worker revises or withdraws it. */
  withhold: async (m: EntityManager, campaignId: string, memoryId: string, version: number, at: string) => {
    await rawRows(m, "UPDATE memories SET status = 'withheld', changed_version = ? WHERE campaign_id = ? AND id = ?", [
      version,
      campaignId,
      memoryId,
    ]);
    await memorySql.history(m, campaignId, memoryId, { reason: 'withheld', memoryVersion: null, searchSeq: null, at });
  },
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

  /**
   * §10: what retractions at or before game version `version` withheld and no revision settled yet: memories
   * (`ix_memories_withheld`), the withheld rows above each "Previously" key's newest live one, unwithdrawn terms.
   * Nothing withheld (the usual case) costs three partial-index probes that find nothing.
   */
  async withheld(campaignId: string, version: number): Promise<Withheld> {
    return this.db.read(async (m) => {
      const memories = await rawRows<{
        id: string;
        scope: MemoryScope;
        subject_id: string;
        trigger_version: number | string;
        input_indexes: string;
        revision: number | string;
      }>(
        m,
        'SELECT id, scope, subject_id, trigger_version, input_indexes, revision FROM memories' +
          " WHERE campaign_id = ? AND status = 'withheld' AND changed_version <= ? ORDER BY memory_version",
        [campaignId, version],
      );
      const terms = await rawRows<{ term: string; term_key: string; coined_message_index: number | string }>(
        m,
        'SELECT term, term_key, coined_message_index FROM glossary_terms WHERE campaign_id = ?' +
          ' AND withheld_version IS NOT NULL AND withheld_version <= ? AND withdrawn_version IS NULL' +
          ' ORDER BY memory_version',
        [campaignId, version],
      );
      return {
        memories: memories.map((r) => ({
          id: r.id,
          scope: r.scope,
          subjectId: r.subject_id,
          triggerVersion: Number(r.trigger_version),
          inputIndexes: json(r.input_indexes),
          revision: Number(r.revision),
        })),
        summaries: await withheldSummaries(m, campaignId, version),
        terms: terms.map((r) => ({
          term: r.term,
          termKey: r.term_key,
          coinedMessageIndex: Number(r.coined_message_index),
        })),
      };
    });
  }
}

/** Per key, the withheld rows newer than its newest live row (older ones were superseded already). */
async function withheldSummaries(m: EntityManager, campaignId: string, version: number): Promise<WithheldSummary[]> {
  const rows = await rawRows<{
    viewer_key: string;
    memory_version: number | string;
    input_indexes: string;
    through_message_index: number | string;
  }>(
    m,
    'SELECT viewer_key, memory_version, input_indexes, through_message_index FROM rolling_summaries' +
      ' WHERE campaign_id = ? AND withheld_version IS NOT NULL AND withheld_version <= ? ORDER BY memory_version',
    [campaignId, version],
  );
  const out: WithheldSummary[] = [];
  for (const key of [...new Set(rows.map((r) => r.viewer_key))]) {
    const base = (
      await rawRows<{ memory_version: number | string; summary: string }>(
        m,
        'SELECT memory_version, summary FROM rolling_summaries WHERE campaign_id = ? AND viewer_key = ?' +
          ' AND withheld_version IS NULL ORDER BY memory_version DESC LIMIT 1',
        [campaignId, key],
      )
    )[0];
    const above = rows.filter(
      (r) => r.viewer_key === key && Number(r.memory_version) > Number(base?.memory_version ?? 0),
    );
    if (above.length === 0) continue;
    out.push({
      key,
      viewer: viewerOfKey(key),
      publicView: key === PUBLIC_SUMMARY_KEY,
      base: base?.summary ?? null,
      inputIndexes: [...new Set(above.flatMap((r) => json(r.input_indexes)))].sort((a, b) => a - b),
      throughMessageIndex: Math.max(...above.map((r) => Number(r.through_message_index))),
    });
  }
  return out;
}

/** The first game version that retracted one of `indexes`, null when none is retracted. */
export async function firstRetraction(m: EntityManager, campaignId: string, indexes: number[]): Promise<number | null> {
  let first: number | null = null;
  const unique = [...new Set(indexes)];
  for (let i = 0; i < unique.length; i += 500) {
    const chunk = unique.slice(i, i + 500);
    const rows = await rawRows<{ v: number | string | null }>(
      m,
      `SELECT MIN(retracted_version) AS v FROM messages WHERE campaign_id = ? AND idx IN (${marks(chunk.length)})`,
      [campaignId, ...chunk],
    );
    const v = rows[0]?.v;
    if (v !== null && v !== undefined && (first === null || Number(v) < first)) first = Number(v);
  }
  return first;
}
