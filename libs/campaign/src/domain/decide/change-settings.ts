import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';

export function changeSettings(state: CampaignState, command: CommandOf<'ChangeSettings'>): GameEvent[] {
  if (command.perRoleMemory === undefined || command.perRoleMemory === state.settings.perRoleMemory) return [];
  return [{ type: 'CampaignSettingsChanged', data: { perRoleMemory: command.perRoleMemory } }];
}
