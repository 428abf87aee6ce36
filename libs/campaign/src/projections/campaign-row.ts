import { sql } from '@app/database';
import { EntityManager } from 'typeorm';
import { CampaignState } from '../domain/state';
import { CampaignStateCache } from './campaign-state.cache';

export interface CampaignRow {
  state: CampaignState;
  /** Length of the state document when it was read and parsed here; null when the cache served the state. */
  parsedChars: number | null;
}

/**
 * The campaign row: its version first (a small column), its state document only when `cache` lacks
 * that version. Nothing is put in the cache here: only the caller knows whether the row is committed.
 */
export async function readCampaignRow(
  m: EntityManager,
  campaignId: string,
  cache: CampaignStateCache,
): Promise<CampaignRow | null> {
  const head = (
    await sql<{ version: number | string; timeline: number | string }>(
      m,
      'SELECT "version", "timeline" FROM "campaigns" WHERE "id" = ?',
      [campaignId],
    )
  ).rows[0];
  if (!head) return null;
  // §10: a version number is only the same state within one timeline (a rewind reuses numbers).
  const cached = cache.get(campaignId, Number(head.timeline), Number(head.version));
  if (cached) return { state: cached, parsedChars: null };
  // Version, timeline and document from one read: on PostgreSQL another replica may have written in between.
  const text = 'SELECT "version", "timeline", "state" FROM "campaigns" WHERE "id" = ?';
  type Row = { version: number | string; timeline: number | string; state: string };
  const row = (await sql<Row>(m, text, [campaignId])).rows[0];
  const parsed = JSON.parse(row.state) as CampaignState;
  return {
    state: { ...parsed, version: Number(row.version), timeline: Number(row.timeline) },
    parsedChars: row.state.length,
  };
}
