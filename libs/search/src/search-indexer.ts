import { Message, MessageIndexer, messageRounds } from '@app/campaign';
import { IndexedMemory, MemoryIndexer } from '@app/memory';
import { EntityManager } from 'typeorm';
import { MemoryDoc, MessageDoc, SearchIndex } from './search-index.port';

export const toMessageDoc = (m: Message): MessageDoc => ({
  index: m.index,
  role: m.role,
  locationId: m.locationId,
  at: m.at,
  round: m.round,
  content: m.content,
  reasoning: m.reasoning,
});

/** Hooks the search index into the campaign and memory projections: same transaction, same commit. */
export class SearchIndexer implements MessageIndexer, MemoryIndexer {
  constructor(private readonly index: SearchIndex) {}

  indexMessages(m: EntityManager, campaignId: string, messages: Message[]): Promise<void> {
    return this.index.indexMessages(m, campaignId, messages.map(toMessageDoc));
  }

  async indexMemories(m: EntityManager, campaignId: string, memories: IndexedMemory[]): Promise<void> {
    // A memory is dated by the last message it covers.
    const rounds = await messageRounds(
      m,
      campaignId,
      memories.map((r) => Number(r.throughMessageIndex)),
    );
    const docs: MemoryDoc[] = memories.map((r) => ({
      id: r.id,
      // §10: one row per wording (a revision's memory version, 2^30 + game version for a DM correction).
      seq: Number(r.searchSeq ?? r.memoryVersion),
      locationId: r.locationId,
      at: r.createdAt,
      round: rounds.get(Number(r.throughMessageIndex)) ?? null,
      summary: r.summary,
    }));
    return this.index.indexMemories(m, campaignId, docs);
  }
}
