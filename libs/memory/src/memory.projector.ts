import { glossaryKey, viewerKey, witnessCounts } from '@app/campaign';
import { sql } from '@app/database';
import { StoredEvent } from '@app/event-store';
import { EntityManager } from 'typeorm';
import { MemoryWitnessRecord, RollingSummaryRecord } from './layers.entity';
import { GlossaryTermAddedData, MemoryRecordedData, RollingSummaryUpdatedData, summarySubject } from './memory-events';
import { PUBLIC_SUMMARY_KEY, PUBLIC_SUMMARY_SUBJECT } from './memory-events';
import { MemoryRecord } from './memory.entity';
import { CheckpointStore } from './checkpoint/checkpoint.store';
import { memorySql } from './worker-sql';

const CHUNK = 500;

/** What an indexer is told of a new memory: a view, so no other lib depends on memory's entity. */
export type IndexedMemory = Readonly<
  Pick<MemoryRecord, 'id' | 'memoryVersion' | 'locationId' | 'createdAt' | 'throughMessageIndex' | 'summary'>
>;

/** Listeners that index memories in the same transaction (the search index, §7). */
export interface MemoryIndexer {
  indexMemories(m: EntityManager, campaignId: string, memories: IndexedMemory[]): Promise<void>;
}

/** Projects memory-stream events into memories, cursors and the memory version of the campaign's checkpoint. */
export class MemoryProjector {
  private readonly indexers: MemoryIndexer[] = [];

  addIndexer(indexer: MemoryIndexer): void {
    this.indexers.push(indexer);
  }

  /**
   * Empties the memory projection's tables inside `m` (a rebuild replays the memory streams into them next).
   * Not the checkpoints: the memories a campaign's worker already made are replayed, never made again.
   */
  async reset(m: EntityManager): Promise<void> {
    const tables = ['memory_witnesses', 'glossary_terms', 'rolling_summaries', 'memory_cursors', 'memories'];
    for (const table of tables) await sql(m, `DELETE FROM "${table}"`);
  }

  /**
   * `memoryVersion: false`: the caller moves the checkpoint's memory version itself (the worker, with its checkpoint).
   */
  async apply(
    m: EntityManager,
    campaignId: string,
    events: StoredEvent[],
    o: { memoryVersion?: boolean } = {},
  ): Promise<void> {
    const memories: MemoryRecord[] = [];
    for (const e of events) {
      if (e.type === 'GlossaryTermAdded') await this.addTerm(m, campaignId, e.data as GlossaryTermAddedData, e.version);
      if (e.type === 'RollingSummaryUpdated')
        await this.addSummary(m, campaignId, e.data as RollingSummaryUpdatedData, e.version);
      if (e.type !== 'MemoryRecorded') continue;
      const d = e.data as MemoryRecordedData;
      const row = toMemoryRecord(campaignId, d, e.version);
      memories.push(row);
      await memorySql.insertMemory(m, row);
      await memorySql.upsertCursor(m, campaignId, d.scope, d.subjectId, d.cursor);
      await this.addWitnesses(m, campaignId, d);
    }
    const last = events[events.length - 1];
    if (last && o.memoryVersion !== false) await CheckpointStore.setMemoryVersion(m, campaignId, last.version);
    for (const indexer of this.indexers) if (memories.length) await indexer.indexMemories(m, campaignId, memories);
  }

  private async addTerm(
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

  private async addSummary(
    m: EntityManager,
    campaignId: string,
    d: RollingSummaryUpdatedData,
    memoryVersion: number,
  ): Promise<void> {
    const publicToo = { ...d, alsoPublic: false, publicView: true };
    if (d.alsoPublic) await this.addSummary(m, campaignId, publicToo, memoryVersion);
    await m.getRepository(RollingSummaryRecord).insert({
      campaignId,
      viewerKey: d.publicView ? PUBLIC_SUMMARY_KEY : d.viewer === null ? '*' : viewerKey('player', d.viewer),
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
  }

  /** A viewer may see a memory only if it witnessed every message the summarizer read. */
  private async addWitnesses(m: EntityManager, campaignId: string, d: MemoryRecordedData): Promise<void> {
    const inputs = [...new Set(d.inputIndexes)];
    // §8 public view: counted as a witness key too, so a memory built from public messages only is the public's.
    const counts = await witnessCounts(m, campaignId, inputs);
    const viewers = [...counts]
      .filter(([, n]) => n === inputs.length)
      .map(([viewerId]) => ({ campaignId, viewerId, memoryId: d.memoryId }));
    for (let i = 0; i < viewers.length; i += CHUNK) {
      await m
        .createQueryBuilder()
        .insert()
        .into(MemoryWitnessRecord)
        .values(viewers.slice(i, i + CHUNK))
        .updateEntity(false)
        .execute();
    }
  }
}

export function toMemoryRecord(campaignId: string, d: MemoryRecordedData, memoryVersion: number): MemoryRecord {
  return Object.assign(new MemoryRecord(), {
    id: d.memoryId,
    campaignId,
    scope: d.scope,
    subjectId: d.subjectId,
    summary: d.summary,
    tags: JSON.stringify(d.tags),
    locationId: d.locationId,
    npcIds: JSON.stringify(d.npcIds),
    questId: d.questId,
    encounterId: d.encounterId,
    sinceMessageIndex: d.sinceMessageIndex,
    throughMessageIndex: d.throughMessageIndex,
    sinceTimestamp: d.sinceTimestamp,
    createdAt: d.createdAt,
    triggerVersion: d.triggerVersion,
    memoryVersion,
    inputIndexes: JSON.stringify(d.inputIndexes),
    revision: 1,
    origin: 'model',
    status: 'active',
    changedVersion: d.triggerVersion,
    locked: false,
    cursor: d.cursor,
  });
}
