import { BROADCAST_POSTED, BROADCAST_STREAM_PREFIX, broadcastDoc } from '@app/broadcasts';
import { Message, toMessageDoc } from '@app/campaign';
import { EventStore, gameStream, StoredEvent } from '@app/event-store';
import { Database } from '@app/database';
import { MemoryReader, WordingKey, wordingsPage, WordingSearch } from '@app/memory';
import { SearchIndex } from '@app/search';
import { EntityManager } from 'typeorm';

export interface RebuildReport {
  events: number;
  messages: number;
  memories: number;
  broadcasts: number;
}

const GAME = gameStream('');

/**
 * Re-creates the search index: messages and broadcasts by replaying the event log (MessageRecorded,
 * BroadcastPosted) through the event store, memories as the memory lib serves their wordings, each as its owner
 * indexes it live. One transaction: readers see the old index or the new one, never half.
 */
export class SearchIndexRebuilder {
  constructor(
    private readonly db: Database,
    private readonly store: EventStore,
    private readonly index: SearchIndex,
    // Unused, kept for callers: the wordings are read inside the rebuild's transaction (wordingsPage).
    _memories?: MemoryReader,
  ) {}

  async rebuild(batchSize = 5000): Promise<RebuildReport> {
    const wordings = new WordingSearch(this.index);
    return this.db.transaction(async (m) => {
      await this.index.clear(m);
      const report: RebuildReport = { events: 0, messages: 0, memories: 0, broadcasts: 0 };
      for (let after = 0; ;) {
        const page = await this.store.readAll({ after, limit: batchSize }, m);
        if (page.length === 0) break;
        after = page[page.length - 1].position;
        report.events += page.length;
        await this.replay(m, page, report);
      }
      // §10: one row per wording (recorded, revised, corrected), as the live projections wrote them.
      for (let after: WordingKey | null = null; ;) {
        const page = await wordingsPage(m, after, batchSize);
        if (page.length === 0) return report;
        after = page[page.length - 1].key;
        for (const [campaignId, list] of groupBy(page, (r) => r.campaignId))
          await wordings.indexMemories(m, campaignId, list);
        report.memories += page.length;
      }
    });
  }

  private async replay(m: EntityManager, events: StoredEvent[], report: RebuildReport): Promise<void> {
    const messages = events.filter((e) => e.type === 'MessageRecorded' && e.streamId.startsWith(GAME));
    for (const [stream, list] of groupBy(messages, (e) => e.streamId)) {
      const docs = list.map((e) => toMessageDoc(e.data as Message));
      await this.index.indexMessages(m, stream.slice(GAME.length), docs);
      report.messages += list.length;
    }
    const broadcasts = events
      .filter((e) => e.type === BROADCAST_POSTED && e.streamId.startsWith(BROADCAST_STREAM_PREFIX))
      .map(broadcastDoc);
    await this.index.indexBroadcasts(m, broadcasts);
    report.broadcasts += broadcasts.length;
  }
}

/** Items by key, keys in order of first appearance. */
function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
