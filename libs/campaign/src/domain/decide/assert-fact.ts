import { invalid } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';
import { factClass, factId } from '../world-state';

export function assertFact(state: CampaignState, c: CommandOf<'AssertFact'>): GameEvent[] {
  if (c.expiresAt === null && factClass(c.factType) === 'ephemeral') {
    throw invalid('TTL_REQUIRED', `a ${c.factType} fact is ephemeral and needs ttlSeconds or expiresAt`);
  }
  if (c.expiresAt !== null && Date.parse(c.expiresAt) <= Date.parse(c.now)) {
    throw invalid('EXPIRES_IN_PAST', `expiresAt ${c.expiresAt} is not in the future`);
  }
  const prev = state.facts?.[factId(c.factType, c.key)];
  const data = { type: c.factType, key: c.key, value: c.value, priority: c.priority, expiresAt: c.expiresAt };
  const same = prev && prev.status === 'active' && prev.value === c.value && prev.priority === c.priority;
  if (same && prev.expiresAt === c.expiresAt) return [];
  return [{ type: 'FactAsserted', data }];
}
