import { sql } from '@app/database';
import { EntityManager } from 'typeorm';
import { CampaignState } from '../domain/state';
import { CampaignStateCache } from './campaign-state.cache';

export interface CampaignRow {
  state: CampaignState;
  processedVersion: number;
  memoryVersion: number;
  /** Length of the state document when it was read and parsed here; null when the cache served the state. */
  parsedChars: number | null;
}

type Counters = { version: number | string; processed_version: number | string; memory_version: number | string };

/**
 * The campaign row: its counters first (small columns), its state document only when `cache` lacks
 * that version. Nothing is put in the cache here: only the caller knows whether the row is committed.
 */
export async function readCampaignRow(m: EntityManager, campaignId: string, cache: CampaignStateCache): Promise<CampaignRow | null> {
  const head = (await sql<Counters>(m, 'SELECT "version", "processed_version", "memory_version" FROM "campaigns" WHERE "id" = ?', [campaignId])).rows[0];
  if (!head) return null;
  const cached = cache.get(campaignId, Number(head.version));
  if (cached) return { state: cached, processedVersion: Number(head.processed_version), memoryVersion: Number(head.memory_version), parsedChars: null };
  // Counters and document from one read: on PostgreSQL another replica may have written in between.
  const row = (await sql<Counters & { state: string }>(m, 'SELECT "version", "processed_version", "memory_version", "state" FROM "campaigns" WHERE "id" = ?', [campaignId])).rows[0];
  return {
    state: { ...(JSON.parse(row.state) as CampaignState), version: Number(row.version) },
    processedVersion: Number(row.processed_version),
    memoryVersion: Number(row.memory_version),
    parsedChars: row.state.length,
  };
}
