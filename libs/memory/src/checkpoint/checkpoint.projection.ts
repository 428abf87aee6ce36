import type { InlineProjection, ProjectionContext } from '@app/campaign';
import type { StoredEvent } from '@app/event-store';
import { CheckpointStore } from './checkpoint.store';

/**
 * Creates a campaign's memory checkpoint in the transaction that creates the campaign (its first game event), so
 * the worker only ever moves an existing row (§10: a deleted campaign's worker must not re-create it).
 */
export class CheckpointProjection implements InlineProjection {
  readonly name = 'checkpoint';
  /** A game stream's first event (version 1) creates the campaign. */
  readonly canHandle = ['CampaignCreated'];

  async handle(events: StoredEvent[], { m, campaignId }: ProjectionContext): Promise<void> {
    if (events.some((e) => e.version === 1)) await CheckpointStore.create(m, campaignId);
  }
}
