import { conflict, notFound } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';
import { factId } from '../world-state';

export function resolveFact(state: CampaignState, c: CommandOf<'ResolveFact'>): GameEvent[] {
  const prev = state.facts?.[factId(c.factType, c.key)];
  if (!prev) throw notFound('FACT_NOT_FOUND', `fact ${c.factType}/${c.key} not found`);
  if (prev.status === 'resolved')
    throw conflict('FACT_ALREADY_RESOLVED', `fact ${c.factType}/${c.key} is already resolved`);
  return [{ type: 'FactResolved', data: { type: c.factType, key: c.key } }];
}
