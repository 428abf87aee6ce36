import type { Horizon, TimelineParticipant } from '@app/campaign';
import { deleteCampaignRows } from '@app/database';
import { EventStore, gameStream } from '@app/event-store';
import { EntityManager } from 'typeorm';
import { AccountProjection } from './account.projection';
import type { AccountView } from './snapshot.store';

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

  /**
   * `GET …/accounts?asOf=V` (DESIGN §10): the bindings as the account events ≤ V leave them, folded in memory like
   * the projection does (an agent has at most one account; logout unbinds). Same order as the current list.
   */
  async accountsAt(campaignId: string, version: number): Promise<AccountView[]> {
    const events = await this.store.readStream(gameStream(campaignId), { until: version, types: ACCOUNT_EVENTS });
    const bound = new Map<string, string | null>();
    for (const e of events) {
      const data = e.data as { accountId: string; agentId?: string };
      if (e.type === 'AccountLoggedIn') {
        for (const [account, agent] of bound) if (agent === data.agentId) bound.set(account, null);
        bound.set(data.accountId, data.agentId ?? null);
      } else if (bound.has(data.accountId)) bound.set(data.accountId, null);
    }
    return [...bound]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([account, agentId]) => ({ account, agentId }));
  }

  private async replay(m: EntityManager, from: string, to: string, until: number): Promise<void> {
    const events = await this.store.readStream(gameStream(from), { until, types: ACCOUNT_EVENTS }, m);
    if (events.length) await this.accounts.project(m, to, events);
  }
}
