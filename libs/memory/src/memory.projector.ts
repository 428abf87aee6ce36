import { CampaignRecord } from '@app/campaign';
import { StoredEvent } from '@app/event-store';
import { EntityManager } from 'typeorm';
import { MemoryRecordedData } from './memory-events';
import { CursorRecord, MemoryRecord } from './memory.entity';

/** Listeners that index memories in the same transaction (the search index, §7). */
export interface MemoryIndexer {
  indexMemories(m: EntityManager, campaignId: string, memories: MemoryRecord[]): Promise<void>;
}

/** Projects memory-stream events into memories, cursors and the campaign's memory version. */
export class MemoryProjector {
  private readonly indexers: MemoryIndexer[] = [];

  addIndexer(indexer: MemoryIndexer): void {
    this.indexers.push(indexer);
  }

  async apply(m: EntityManager, campaignId: string, events: StoredEvent[]): Promise<void> {
    const memories: MemoryRecord[] = [];
    for (const e of events) {
      if (e.type !== 'MemoryRecorded') continue;
      const d = e.data as MemoryRecordedData;
      const row = toMemoryRecord(campaignId, d, e.version);
      memories.push(row);
      await m.getRepository(MemoryRecord).insert(row);
      await m.getRepository(CursorRecord).upsert({ campaignId, scope: d.scope, subjectId: d.subjectId, value: d.cursor }, ['campaignId', 'scope', 'subjectId']);
    }
    const last = events[events.length - 1];
    if (last) await m.getRepository(CampaignRecord).update({ id: campaignId }, { memoryVersion: last.version });
    for (const indexer of this.indexers) if (memories.length) await indexer.indexMemories(m, campaignId, memories);
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
  });
}
