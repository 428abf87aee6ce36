import { witnessCounts } from '@app/campaign';
import { sql } from '@app/database';
import { StoredEvent } from '@app/event-store';
import { EntityManager } from 'typeorm';
import { MemoryWitnessRecord } from './layers.entity';
import { layersProjection } from './layers.projector';
import { GlossaryTermAddedData, MemoryRecordedData, RollingSummaryUpdatedData } from './memory-events';
import { GlossaryTermWithdrawnData, MemoryRevisedData, MemoryWithdrawnData } from './memory-events';
import { MemoryRecord } from './memory.entity';
import { CheckpointStore } from './checkpoint/checkpoint.store';
import { firstRetraction, memorySql, rawRows } from './worker-sql';

const CHUNK = 500;

/**
 * What an indexer is told of a new wording: a view, so no other lib depends on memory's entity. `searchSeq`: the
 * wording's full-text row (§10: a revision's memory version, 2^30 + game version for a correction); default the
 * memory's own version.
 */
export type IndexedMemory = Readonly<
  Pick<MemoryRecord, 'id' | 'memoryVersion' | 'locationId' | 'createdAt' | 'throughMessageIndex' | 'summary'> & {
    searchSeq?: number;
  }
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
    const tables = [
      'memory_witnesses',
      'glossary_terms',
      'rolling_summaries',
      'memory_cursors',
      'memory_history',
      'memories',
    ];
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
    const wordings: IndexedMemory[] = [];
    for (const e of events) {
      if (e.type === 'GlossaryTermAdded')
        await layersProjection.addTerm(m, campaignId, e.data as GlossaryTermAddedData, e.version);
      if (e.type === 'RollingSummaryUpdated')
        await layersProjection.addSummary(m, campaignId, e.data as RollingSummaryUpdatedData, e.version);
      if (e.type === 'MemoryRecorded') wordings.push(await this.record(m, campaignId, e));
      if (e.type === 'MemoryRevised') {
        const revised = await this.revise(m, campaignId, e);
        if (revised) wordings.push(revised);
      }
      if (e.type === 'MemoryWithdrawn') await this.withdraw(m, campaignId, e);
      if (e.type === 'GlossaryTermWithdrawn')
        await layersProjection.withdrawTerm(m, campaignId, e.data as GlossaryTermWithdrawnData);
    }
    const last = events[events.length - 1];
    if (last && o.memoryVersion !== false) await CheckpointStore.setMemoryVersion(m, campaignId, last.version);
    await this.indexWordings(m, campaignId, wordings);
  }

  /** Full-text rows of new wordings, in the caller's transaction (the search index, §7). */
  async indexWordings(m: EntityManager, campaignId: string, wordings: IndexedMemory[]): Promise<void> {
    for (const indexer of this.indexers) if (wordings.length) await indexer.indexMemories(m, campaignId, wordings);
  }

  private async record(m: EntityManager, campaignId: string, e: StoredEvent): Promise<MemoryRecord> {
    const d = e.data as MemoryRecordedData;
    const row = toMemoryRecord(campaignId, d, e.version);
    await memorySql.insertMemory(m, row);
    await memorySql.upsertCursor(m, campaignId, d.scope, d.subjectId, d.cursor);
    await this.addWitnesses(m, campaignId, d);
    const entry = { reason: 'recorded' as const, memoryVersion: e.version, searchSeq: e.version, at: e.recordedAt };
    await memorySql.history(m, campaignId, d.memoryId, entry);
    await this.withheldIfLate(m, campaignId, d.memoryId, d.inputIndexes, d.triggerVersion, e.recordedAt);
    return row;
  }

  /** §10: the revised wording, active again; a locked (DM-corrected) memory keeps the game master's words. */
  private async revise(m: EntityManager, campaignId: string, e: StoredEvent): Promise<IndexedMemory | null> {
    const d = e.data as MemoryRevisedData;
    const changed = await rawRows<Omit<IndexedMemory, 'searchSeq'>>(
      m,
      "UPDATE memories SET summary = ?, input_indexes = ?, revision = ?, status = 'active', changed_version = ?" +
        " WHERE campaign_id = ? AND id = ? AND status = 'withheld' AND NOT locked RETURNING id," +
        ' memory_version AS "memoryVersion", location_id AS "locationId", created_at AS "createdAt",' +
        ' through_message_index AS "throughMessageIndex", summary',
      [d.summary, JSON.stringify(d.inputIndexes), d.revision, d.triggerVersion, campaignId, d.memoryId],
    );
    if (changed.length === 0) return null;
    const entry = { reason: 'revised' as const, memoryVersion: e.version, searchSeq: e.version, at: e.recordedAt };
    await memorySql.history(m, campaignId, d.memoryId, entry);
    await this.withheldIfLate(m, campaignId, d.memoryId, d.inputIndexes, d.triggerVersion, e.recordedAt);
    return { ...changed[0], searchSeq: e.version };
  }

  private async withdraw(m: EntityManager, campaignId: string, e: StoredEvent): Promise<void> {
    const d = e.data as MemoryWithdrawnData;
    const { changes } = await sql(
      m,
      "UPDATE memories SET status = 'withdrawn', changed_version = ? WHERE campaign_id = ? AND id = ?" +
        " AND status = 'withheld' AND NOT locked",
      [d.triggerVersion, campaignId, d.memoryId],
    );
    if (changes === 0) return;
    const entry = { reason: 'withdrawn' as const, memoryVersion: e.version, searchSeq: null, at: e.recordedAt };
    await memorySql.history(m, campaignId, d.memoryId, entry);
  }

  /**
   * §10 late outcome: a lagging worker summarized, as of its trigger, a message retracted since. Withheld at once
   * (from the retraction on), so no read serves it; the revision trigger of that retraction, handled later, revises it.
   */
  private async withheldIfLate(
    m: EntityManager,
    campaignId: string,
    memoryId: string,
    inputs: number[],
    triggerVersion: number,
    at: string,
  ): Promise<void> {
    const retractedAt = await firstRetraction(m, campaignId, inputs);
    if (retractedAt === null) return;
    await memorySql.withhold(m, campaignId, memoryId, Math.max(retractedAt, triggerVersion), at);
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
