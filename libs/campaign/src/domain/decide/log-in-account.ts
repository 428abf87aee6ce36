import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';

export function logInAccount(state: CampaignState, c: CommandOf<'LogInAccount'>): GameEvent[] {
  const accounts = state.accounts ?? {};
  const current = accounts[c.accountId]?.agentId ?? null;
  const previous = Object.values(accounts).find((a) => a.agentId === c.agentId && a.id !== c.accountId)?.id ?? null;
  if (current === c.agentId) return [];
  const data = { accountId: c.accountId, agentId: c.agentId, previousAccountId: previous, replacedAgentId: current };
  return [{ type: 'AccountLoggedIn', data }];
}
