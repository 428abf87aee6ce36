import { messageRounds } from '@app/campaign';
import type { MemoryDoc, SearchIndex } from '@app/search';
import { EntityManager } from 'typeorm';
import type { IndexedMemory, MemoryIndexer } from './memory.projector';
import { wordingId } from './wordings';

/**
 * The search index's rows of memories (§7): memory indexes what it owns, through the port, in the projection's
 * transaction — one row per wording (§10), dated by the last message the memory covers.
 */
export class WordingSearch implements MemoryIndexer {
  constructor(private readonly index: Pick<SearchIndex, 'indexMemories'>) {}

  async indexMemories(m: EntityManager, campaignId: string, memories: IndexedMemory[]): Promise<void> {
    const rounds = await messageRounds(
      m,
      campaignId,
      memories.map((r) => Number(r.throughMessageIndex)),
    );
    const docs: MemoryDoc[] = memories.map((r) => ({
      id: r.id,
      wording: wordingId(Number(r.searchSeq ?? r.memoryVersion)),
      locationId: r.locationId,
      at: r.createdAt,
      round: rounds.get(Number(r.throughMessageIndex)) ?? null,
      summary: r.summary,
    }));
    return this.index.indexMemories(m, campaignId, docs);
  }
}
