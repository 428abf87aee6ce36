import { Message } from '@app/campaign';
import { EventRecord, gameStream, memoryStream } from '@app/event-store';
import { Database } from '@app/database';
import { MemoryRecord, MemoryRecordedData, toMemoryRecord } from '@app/memory';
import { EntityManager } from 'typeorm';
import { BROADCAST_POSTED, BROADCAST_STREAM_PREFIX, broadcastDoc } from './broadcasts/broadcast-events';
import { BroadcastDoc, SearchIndex } from './search-index.port';
import { SearchIndexer } from './search-indexer';

export interface RebuildReport {
  events: number;
  messages: number;
  memories: number;
  broadcasts: number;
}

const GAME = gameStream('');
const MEMORY = memoryStream('');
const INDEXED_TYPES = ['MessageRecorded', 'MemoryRecorded', BROADCAST_POSTED];

/**
 * Re-creates the search index by replaying the event log (MessageRecorded, MemoryRecorded,
 * BroadcastPosted) through the same indexer the live projections use. One transaction: readers see
 * the old index or the new one, never half of it.
 */
export class SearchIndexRebuilder {
  constructor(
    private readonly db: Database,
    private readonly index: SearchIndex,
  ) {}

  async rebuild(batchSize = 5000): Promise<RebuildReport> {
    const indexer = new SearchIndexer(this.index);
    return this.db.transaction(async (m) => {
      await this.index.clear(m);
      const report: RebuildReport = { events: 0, messages: 0, memories: 0, broadcasts: 0 };
      for (let after = 0; ; ) {
        const page = await m
          .getRepository(EventRecord)
          .createQueryBuilder('e')
          .where('e.position > :after', { after })
          .orderBy('e.position', 'ASC')
          .limit(batchSize)
          .getMany();
        if (page.length === 0) return report;
        after = Number(page[page.length - 1].position);
        report.events += page.length;
        await this.replay(m, indexer, page.filter((e) => INDEXED_TYPES.includes(e.type)), report);
      }
    });
  }

  private async replay(m: EntityManager, indexer: SearchIndexer, events: EventRecord[], report: RebuildReport): Promise<void> {
    const messages = new Map<string, Message[]>();
    const memories = new Map<string, MemoryRecord[]>();
    const broadcasts: BroadcastDoc[] = [];
    const push = <T>(map: Map<string, T[]>, key: string, value: T) => {
      const list = map.get(key);
      if (list) list.push(value);
      else map.set(key, [value]);
    };
    for (const e of events) {
      const data = JSON.parse(e.data);
      if (e.type === 'MessageRecorded' && e.streamId.startsWith(GAME)) {
        push(messages, e.streamId.slice(GAME.length), data as Message);
      } else if (e.type === 'MemoryRecorded' && e.streamId.startsWith(MEMORY)) {
        const campaignId = e.streamId.slice(MEMORY.length);
        push(memories, campaignId, toMemoryRecord(campaignId, data as MemoryRecordedData, Number(e.version)));
      } else if (e.type === BROADCAST_POSTED && e.streamId.startsWith(BROADCAST_STREAM_PREFIX)) {
        broadcasts.push(broadcastDoc({ position: Number(e.position), streamId: e.streamId, version: Number(e.version), type: e.type, data, metadata: {}, recordedAt: e.recordedAt }));
      }
    }
    for (const [campaignId, list] of messages) {
      await indexer.indexMessages(m, campaignId, list);
      report.messages += list.length;
    }
    await this.index.indexBroadcasts(m, broadcasts);
    report.broadcasts += broadcasts.length;
    for (const [campaignId, list] of memories) {
      await indexer.indexMemories(m, campaignId, list);
      report.memories += list.length;
    }
  }
}
