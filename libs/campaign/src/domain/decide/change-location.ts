import { conflict } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';
import { requireLocation } from './require';

export function changeLocation(state: CampaignState, command: CommandOf<'ChangeLocation'>): GameEvent[] {
  requireLocation(state, command.toLocationId);
  if (state.currentLocationId === command.toLocationId)
    throw conflict('ALREADY_THERE', `the party is already at ${command.toLocationId}`);
  const from = state.currentLocationId;
  const npcsPresent =
    from === null
      ? []
      : Object.values(state.npcs)
          .filter((n) => n.locationId === from)
          .map((n) => n.id)
          .sort();
  return [{ type: 'LocationChanged', data: { fromLocationId: from, toLocationId: command.toLocationId, npcsPresent } }];
}
