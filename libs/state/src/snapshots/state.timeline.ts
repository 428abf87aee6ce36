import type { Horizon, TimelineParticipant } from '@app/campaign';
import { deleteCampaignRows } from '@app/database';
import { EventStore, gameStream } from '@app/event-store';
import { EntityManager } from 'typeorm';
import { AccountProjection } from './account.projection';

const ACCOUNT_EVENTS = ['AccountLoggedIn', 'AccountLoggedOut'];

/**
 * The state lib's rows in fork, rewind and delete (DESIGN §10). Accounts are a projection of the game stream, so a
 * fork or rewind has them as of V: replayed from the account events ≤ V (few; read by type). Snapshots and their
 * tools are a cache of what clients pushed, not history: never copied, kept by a rewind, removed with the campaign.
 */
export class StateTimeline implements TimelineParticipant {
  readonly name = 'state';

  constructor(
    private readonly store: EventStore,
    private readonly accounts = new AccountProjection(),
  ) {}

  async copy(m: EntityManager, from: string, to: string, at: Horizon): Promise<void> {
    await this.replay(m, from, to, at.version);
  }

  async rewind(m: EntityManager, id: string, to: Horizon): Promise<void> {
    await deleteCampaignRows(m, 'accounts', id);
    await this.replay(m, id, id, to.version);
  }

  async remove(m: EntityManager, id: string): Promise<void> {
    for (const table of ['snapshot_tools', 'game_state_snapshots', 'accounts']) await deleteCampaignRows(m, table, id);
  }

  private async replay(m: EntityManager, from: string, to: string, until: number): Promise<void> {
    const events = await this.store.readStream(gameStream(from), { until, types: ACCOUNT_EVENTS }, m);
    if (events.length) await this.accounts.project(m, to, events);
  }
}
