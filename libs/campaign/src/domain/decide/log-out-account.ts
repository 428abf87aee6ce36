import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';

export function logOutAccount(state: CampaignState, c: CommandOf<'LogOutAccount'>): GameEvent[] {
  // Always recorded: logging out also clears a cache that may have been filled without a login.
  return [
    {
      type: 'AccountLoggedOut',
      data: { accountId: c.accountId, agentId: state.accounts?.[c.accountId]?.agentId ?? null },
    },
  ];
}
