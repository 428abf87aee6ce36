import type { InlineProjection, ProjectionContext } from '@app/campaign';
import type { StoredEvent } from '@app/event-store';
import { EntityManager } from 'typeorm';
import { memorySql, rawRows } from './worker-sql';

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/**
 * §10 "no ghost memories": in the retraction's own transaction, everything built from a retracted message is
 * withheld from reads — scene memories (unless the game master locked them), every "Previously" from the first one
 * that read it on, and the terms it coined — until the worker revises or withdraws them.
 */
export class RetractionProjection implements InlineProjection {
  readonly name = 'memory-retractions';
  readonly canHandle = ['MessagesRetracted'];

  async handle(events: StoredEvent[], { m, campaignId }: ProjectionContext): Promise<void> {
    for (const e of events) {
      if (e.type !== 'MessagesRetracted') continue;
      const indexes = [...new Set((e.data as { indexes: number[] }).indexes)];
      if (indexes.length === 0) continue;
      await withholdMemories(m, campaignId, indexes, e);
      await withholdSummaries(m, campaignId, indexes, e.version);
      await withholdTerms(m, campaignId, indexes, e.version);
    }
  }
}

async function withholdMemories(m: EntityManager, campaignId: string, indexes: number[], e: StoredEvent) {
  const retracted = new Set(indexes);
  // A memory's inputs lie in its [since, through] range (ix_memories_through); the exact test is on its inputs.
  const candidates = await rawRows<{ id: string; input_indexes: string }>(
    m,
    'SELECT id, input_indexes FROM memories WHERE campaign_id = ? AND through_message_index >= ?' +
      " AND since_message_index <= ? AND status = 'active' AND NOT locked",
    [campaignId, Math.min(...indexes), Math.max(...indexes)],
  );
  for (const c of candidates) {
    if (!(JSON.parse(c.input_indexes) as number[]).some((i) => retracted.has(i))) continue;
    await memorySql.withhold(m, campaignId, c.id, e.version, e.recordedAt);
  }
}

/** Per key, the first summary that read a retracted message and every later one (each was built on it). */
async function withholdSummaries(m: EntityManager, campaignId: string, indexes: number[], version: number) {
  const retracted = new Set(indexes);
  const rows = await rawRows<{ viewer_key: string; memory_version: number | string; input_indexes: string }>(
    m,
    'SELECT viewer_key, memory_version, input_indexes FROM rolling_summaries WHERE campaign_id = ?' +
      ' AND through_message_index >= ? AND withheld_version IS NULL ORDER BY viewer_key, memory_version',
    [campaignId, Math.min(...indexes)],
  );
  const firsts = new Map<string, number>();
  for (const r of rows) {
    if (firsts.has(r.viewer_key)) continue;
    if ((JSON.parse(r.input_indexes) as number[]).some((i) => retracted.has(i)))
      firsts.set(r.viewer_key, Number(r.memory_version));
  }
  for (const [key, from] of firsts) {
    await rawRows(
      m,
      'UPDATE rolling_summaries SET withheld_version = ? WHERE campaign_id = ? AND viewer_key = ?' +
        ' AND memory_version >= ? AND withheld_version IS NULL',
      [version, campaignId, key, from],
    );
  }
}

/** Terms coined by a retracted message (ix_glossary_coined); a DM-locked one keeps its override, served from state. */
async function withholdTerms(m: EntityManager, campaignId: string, indexes: number[], version: number) {
  for (let i = 0; i < indexes.length; i += 500) {
    const chunk = indexes.slice(i, i + 500);
    await rawRows(
      m,
      'UPDATE glossary_terms SET withheld_version = ? WHERE campaign_id = ? ' +
        `AND coined_message_index IN (${marks(chunk.length)})` +
        ' AND withheld_version IS NULL AND withdrawn_version IS NULL',
      [version, campaignId, ...chunk],
    );
  }
}
