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
    await sql<{ version: number | string }>(m, 'SELECT "version" FROM "campaigns" WHERE "id" = ?', [campaignId])
  ).rows[0];
  if (!head) return null;
  const cached = cache.get(campaignId, Number(head.version));
  if (cached) return { state: cached, parsedChars: null };
  // Version and document from one read: on PostgreSQL another replica may have written in between.
  const text = 'SELECT "version", "state" FROM "campaigns" WHERE "id" = ?';
  const row = (await sql<{ version: number | string; state: string }>(m, text, [campaignId])).rows[0];
  return {
    state: { ...(JSON.parse(row.state) as CampaignState), version: Number(row.version) },
    parsedChars: row.state.length,
  };
}
