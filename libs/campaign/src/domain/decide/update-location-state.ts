import { conflict, invalid } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';
import { requireLocation } from './require';

type LocationStateUpdated = Extract<GameEvent, { type: 'LocationStateUpdated' }>;

export function updateLocationState(state: CampaignState, command: CommandOf<'UpdateLocationState'>): GameEvent[] {
  const location = requireLocation(state, command.locationId);
  if (command.dangerLevel === undefined && command.completeEncounter === undefined) {
    throw invalid('NOTHING_TO_UPDATE', 'give dangerLevel and/or completeEncounter');
  }
  if (command.completeEncounter !== undefined && location.completedEncounters.includes(command.completeEncounter)) {
    throw conflict('ENCOUNTER_ALREADY_COMPLETED', `encounter ${command.completeEncounter} is already completed`);
  }
  if (command.completeEncounter === undefined && command.dangerLevel === location.dangerLevel) {
    throw conflict('DANGER_LEVEL_UNCHANGED', `location ${location.id} is already ${location.dangerLevel}`);
  }
  const data: LocationStateUpdated['data'] = { locationId: location.id, fromDangerLevel: location.dangerLevel };
  if (command.dangerLevel !== undefined) data.dangerLevel = command.dangerLevel;
  if (command.completeEncounter !== undefined) data.completedEncounterId = command.completeEncounter;
  return [{ type: 'LocationStateUpdated', data }];
}
