import type { GameEventProjection } from '@app/campaign';
import type { StoredEvent } from '@app/event-store';
import { EntityManager } from 'typeorm';
import { CheckpointStore } from './checkpoint.store';

/**
 * Creates a campaign's memory checkpoint in the transaction that creates the campaign (its first game event), so
 * the worker only ever moves an existing row (§10: a deleted campaign's worker must not re-create it).
 */
export class CheckpointProjection implements GameEventProjection {
  async project(m: EntityManager, campaignId: string, events: StoredEvent[]): Promise<void> {
    if (events.some((e) => e.version === 1)) await CheckpointStore.create(m, campaignId);
  }
}
