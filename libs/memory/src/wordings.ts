import type { WordingId } from '@app/search';
import { EntityManager } from 'typeorm';
import type { IndexedMemory } from './memory.projector';
import { rawRows } from './worker-sql';

/**
 * §10: `memory_history.search_seq` numbers a memory's wordings: the memory version of a recorded or revised one,
 * CORRECTION_ROWS + the game version of a DM correction (above every memory-stream version, unique per game version).
 * Memory's own column: the search index is given the wording as a WordingId and places its rows itself.
 */
export const CORRECTION_ROWS = 2 ** 30;

/** A DM correction's wording number (CORRECTION_ROWS + its game version). */
export const correctionSeq = (gameVersion: number): number => CORRECTION_ROWS + gameVersion;

/** The wording a `search_seq` numbers, as the search port names it. */
export const wordingId = (searchSeq: number): WordingId =>
  searchSeq >= CORRECTION_ROWS
    ? { source: 'correction', version: searchSeq - CORRECTION_ROWS }
    : { source: 'memory', version: searchSeq };

/** Where a page of wordings stops: the `memory_history` primary key of its last row. */
export interface WordingKey {
  campaignId: string;
  memoryId: string;
  seq: number;
}

export type Wording = IndexedMemory & { campaignId: string; key: WordingKey };

/**
 * Every wording a memory ever had (§10: recorded, revised, corrected), each with its own full-text row id, by the
 * `memory_history` primary key after an exclusive key, inside `m`: the search index's rebuild gives each wording
 * its row again, as the live projections did.
 */
export async function wordingsPage(m: EntityManager, after: WordingKey | null, limit: number): Promise<Wording[]> {
  const from = after
    ? ' AND (h.campaign_id > ? OR (h.campaign_id = ? AND (h.memory_id > ? OR (h.memory_id = ? AND h.seq > ?))))'
    : '';
  const params = after ? [after.campaignId, after.campaignId, after.memoryId, after.memoryId, after.seq] : [];
  const rows = await rawRows<{
    campaign_id: string;
    memory_id: string;
    seq: number | string;
    memory_version: number | string;
    location_id: string | null;
    created_at: string;
    through_message_index: number | string;
    summary: string;
    search_seq: number | string;
  }>(
    m,
    'SELECT h.campaign_id, h.memory_id, h.seq, r.memory_version, r.location_id, r.created_at,' +
      ' r.through_message_index, h.summary, h.search_seq FROM memory_history h JOIN memories r' +
      ' ON r.campaign_id = h.campaign_id AND r.id = h.memory_id' +
      " WHERE h.reason IN ('recorded', 'revised', 'corrected')" +
      `${from} ORDER BY h.campaign_id, h.memory_id, h.seq LIMIT ?`,
    [...params, limit],
  );
  return rows.map((r) => ({
    campaignId: r.campaign_id,
    key: { campaignId: r.campaign_id, memoryId: r.memory_id, seq: Number(r.seq) },
    id: r.memory_id,
    memoryVersion: Number(r.memory_version),
    locationId: r.location_id,
    createdAt: r.created_at,
    throughMessageIndex: Number(r.through_message_index),
    summary: r.summary,
    searchSeq: Number(r.search_seq),
  }));
}
