import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';

export function putLocation(state: CampaignState, command: CommandOf<'PutLocation'>): GameEvent[] {
  const prev = state.locations[command.locationId];
  const dangerLevel = command.dangerLevel ?? prev?.dangerLevel ?? null;
  const data = { locationId: command.locationId, name: command.name, dangerLevel };
  if (!prev) return [{ type: 'LocationRegistered', data }];
  if (prev.name === command.name && prev.dangerLevel === dangerLevel) return [];
  return [{ type: 'LocationRenamed', data }];
}
