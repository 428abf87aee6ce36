import type { InlineProjection, ProjectionContext, WorldStateEvent } from '@app/campaign';
import type { StoredEvent } from '@app/event-store';
import { EntityManager } from 'typeorm';
import { AccountRecord, GameStateSnapshotRecord } from './game-state.entities';

/**
 * Projects AccountLoggedIn/Out into `accounts`, in the append's transaction. Logout deletes that
 * account's snapshots only: other accounts are never touched.
 */
export class AccountProjection implements InlineProjection {
  readonly name = 'accounts';
  readonly canHandle = ['AccountLoggedIn', 'AccountLoggedOut'];

  handle(events: StoredEvent[], { m, campaignId }: ProjectionContext): Promise<void> {
    return this.project(m, campaignId, events);
  }

  /** Also replayed by fork (state.timeline.ts), outside an append. */
  async project(m: EntityManager, campaignId: string, events: StoredEvent[]): Promise<void> {
    const accounts = m.getRepository(AccountRecord);
    for (const e of events) {
      const event = { type: e.type, data: e.data } as WorldStateEvent;
      if (event.type === 'AccountLoggedIn') {
        const { accountId, agentId } = event.data;
        // The agent's previous account is unbound first: an agent has at most one account.
        await accounts
          .createQueryBuilder()
          .update()
          .set({ agentId: null })
          .where('campaignId = :campaignId AND agentId = :agentId', { campaignId, agentId })
          .execute();
        const row = await accounts.findOneBy({ campaignId, accountId });
        if (row) await accounts.update({ campaignId, accountId }, { agentId });
        else await accounts.insert({ campaignId, accountId, agentId, createdAt: e.recordedAt });
      } else if (event.type === 'AccountLoggedOut') {
        const { accountId } = event.data;
        await m.getRepository(GameStateSnapshotRecord).delete({ campaignId, accountId });
        await accounts.update({ campaignId, accountId }, { agentId: null });
      }
    }
  }
}
