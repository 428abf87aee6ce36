import type { InlineProjection, ProjectionContext } from '@app/campaign';
import type { StoredEvent } from '@app/event-store';
import { EntityManager } from 'typeorm';
import type { IndexedMemory, MemoryProjector } from './memory.projector';
import { memorySql, rawRows } from './worker-sql';
import { correctionSeq } from './wordings';

type Row = Omit<IndexedMemory, 'searchSeq'>;

/**
 * §10 game-master corrections, in the command's transaction: a corrected memory reads as written, `origin: dm`,
 * locked against revision, with a history entry and its own full-text row (2^30 + game version: never a memory
 * version, so a fork copies it unchanged); a deleted one is never served again. Who may see it does not change.
 */
export class CorrectionsProjection implements InlineProjection {
  readonly name = 'corrections';
  readonly canHandle = ['MemoryCorrected', 'MemoryDeleted'];

  constructor(private readonly memories: MemoryProjector) {}

  async handle(events: StoredEvent[], { m, campaignId }: ProjectionContext): Promise<void> {
    for (const e of events) {
      if (e.type === 'MemoryCorrected') await this.correct(m, campaignId, e);
      if (e.type === 'MemoryDeleted') await this.remove(m, campaignId, e);
    }
  }

  private async correct(m: EntityManager, campaignId: string, e: StoredEvent): Promise<void> {
    const { memoryId, summary } = e.data as { memoryId: string; summary: string };
    const seq = correctionSeq(e.version);
    const changed = await rawRows<Row>(
      m,
      "UPDATE memories SET summary = ?, origin = 'dm', locked = TRUE, status = 'active', revision = revision + 1," +
        ' changed_version = ? WHERE campaign_id = ? AND id = ? RETURNING id, memory_version AS "memoryVersion",' +
        ' location_id AS "locationId", created_at AS "createdAt", through_message_index AS "throughMessageIndex",' +
        ' summary',
      [summary, e.version, campaignId, memoryId],
    );
    // The command checked the memory exists; a rebuild replaying an orphaned correction has nothing to correct.
    if (changed.length === 0) return;
    await memorySql.history(m, campaignId, memoryId, {
      reason: 'corrected',
      memoryVersion: null,
      searchSeq: seq,
      at: e.recordedAt,
    });
    await this.memories.indexWordings(m, campaignId, [{ ...changed[0], searchSeq: seq }]);
  }

  private async remove(m: EntityManager, campaignId: string, e: StoredEvent): Promise<void> {
    const { memoryId } = e.data as { memoryId: string };
    const changed = await rawRows(
      m,
      "UPDATE memories SET status = 'deleted', changed_version = ? WHERE campaign_id = ? AND id = ? RETURNING id",
      [e.version, campaignId, memoryId],
    );
    if (changed.length === 0) return;
    await memorySql.history(m, campaignId, memoryId, {
      reason: 'deleted',
      memoryVersion: null,
      searchSeq: null,
      at: e.recordedAt,
    });
  }
}
