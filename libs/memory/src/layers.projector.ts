import { glossaryKey, viewerKey } from '@app/campaign';
import { sql } from '@app/database';
import { EntityManager } from 'typeorm';
import { RollingSummaryRecord } from './layers.entity';
import { GlossaryTermAddedData, GlossaryTermWithdrawnData, RollingSummaryUpdatedData } from './memory-events';
import { PUBLIC_SUMMARY_KEY, PUBLIC_SUMMARY_SUBJECT, summarySubject } from './memory-events';
import { firstRetraction, memorySql, rawRows } from './worker-sql';

/**
 * The layers' part of the memory projection (MemoryProjector): glossary terms and "Previously" rows, in the
 * projector's transaction; each withheld at once when it read a message retracted since (§10 late outcomes).
 */
export const layersProjection = {
  async addTerm(m: EntityManager, campaignId: string, d: GlossaryTermAddedData, memoryVersion: number) {
    await insertTerm(m, campaignId, d, memoryVersion);
    await withholdLateTerm(m, campaignId, d, memoryVersion);
  },
  addSummary,
  withdrawTerm,
};

async function insertTerm(
  m: EntityManager,
  campaignId: string,
  d: GlossaryTermAddedData,
  memoryVersion: number,
): Promise<void> {
  const key = glossaryKey(d.term);
  // The first live coining wins (a row per coining since §10, so the key no longer dedupes); a replayed
  // duplicate must not wedge the worker.
  await sql(
    m,
    'INSERT INTO glossary_terms (campaign_id, term_key, term, definition, coined_message_index, trigger_version, ' +
      'memory_version, created_at) SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM glossary_terms ' +
      'WHERE campaign_id = ? AND term_key = ? AND withdrawn_version IS NULL) ON CONFLICT DO NOTHING',
    [
      campaignId,
      key,
      d.term,
      d.definition,
      d.coinedMessageIndex,
      d.triggerVersion,
      memoryVersion,
      d.createdAt,
      campaignId,
      key,
    ],
  );
}

async function addSummary(
  m: EntityManager,
  campaignId: string,
  d: RollingSummaryUpdatedData,
  memoryVersion: number,
): Promise<void> {
  const publicToo = { ...d, alsoPublic: false, publicView: true };
  if (d.alsoPublic) await addSummary(m, campaignId, publicToo, memoryVersion);
  const key = d.publicView ? PUBLIC_SUMMARY_KEY : d.viewer === null ? '*' : viewerKey('player', d.viewer);
  await m.getRepository(RollingSummaryRecord).insert({
    campaignId,
    viewerKey: key,
    memoryVersion,
    summary: d.summary,
    sinceMessageIndex: d.sinceMessageIndex,
    throughMessageIndex: d.throughMessageIndex,
    triggerVersion: d.triggerVersion,
    createdAt: d.createdAt,
    inputIndexes: JSON.stringify(d.inputIndexes),
  });
  const subject = d.publicView ? PUBLIC_SUMMARY_SUBJECT : summarySubject(d.viewer);
  await memorySql.upsertCursor(m, campaignId, 'summary', subject, d.throughMessageIndex);
  await withholdLateSummary(m, campaignId, key, memoryVersion, d);
}

/**
 * §10 late "Previously": one that read a message retracted since, or was built on a summary a retraction (later than
 * its trigger) withheld, is withheld from that retraction on, like the rows the retraction itself withheld.
 */
async function withholdLateSummary(
  m: EntityManager,
  campaignId: string,
  key: string,
  memoryVersion: number,
  d: RollingSummaryUpdatedData,
): Promise<void> {
  const own = await firstRetraction(m, campaignId, d.inputIndexes);
  const previous = await rawRows<{ w: number | string | null }>(
    m,
    'SELECT withheld_version AS w FROM rolling_summaries WHERE campaign_id = ? AND viewer_key = ?' +
      ' AND memory_version < ? ORDER BY memory_version DESC LIMIT 1',
    [campaignId, key, memoryVersion],
  );
  const w = previous[0]?.w;
  const base = !d.revision && w !== null && w !== undefined && Number(w) > d.triggerVersion ? Number(w) : null;
  const at = [own, base].filter((v): v is number => v !== null);
  if (at.length === 0) return;
  await sql(
    m,
    'UPDATE rolling_summaries SET withheld_version = ? WHERE campaign_id = ? AND viewer_key = ? AND memory_version = ?',
    [Math.max(Math.min(...at), d.triggerVersion), campaignId, key, memoryVersion],
  );
}

/** §10 late coining: its message was retracted after the trigger that coined it. */
async function withholdLateTerm(m: EntityManager, campaignId: string, d: GlossaryTermAddedData, version: number) {
  const retractedAt = await firstRetraction(m, campaignId, [d.coinedMessageIndex]);
  if (retractedAt === null) return;
  await sql(
    m,
    'UPDATE glossary_terms SET withheld_version = ? WHERE campaign_id = ? AND term_key = ? AND memory_version = ?',
    [Math.max(retractedAt, d.triggerVersion), campaignId, glossaryKey(d.term), version],
  );
}

/** §10: the term's coining is withdrawn; a later message may coin it again (a new row). */
async function withdrawTerm(m: EntityManager, campaignId: string, d: GlossaryTermWithdrawnData): Promise<void> {
  await sql(
    m,
    'UPDATE glossary_terms SET withdrawn_version = ? WHERE campaign_id = ? AND term_key = ?' +
      ' AND coined_message_index = ? AND withdrawn_version IS NULL',
    [d.triggerVersion, campaignId, glossaryKey(d.term), d.coinedMessageIndex],
  );
}
