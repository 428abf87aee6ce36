import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignSettings, CampaignState } from '../state';

/** A partial change (§8 `PUT …/settings`): only the settings given and different from now are recorded. */
export function changeSettings(state: CampaignState, command: CommandOf<'ChangeSettings'>): GameEvent[] {
  const data: Partial<CampaignSettings> = {};
  if (command.perRoleMemory !== undefined && command.perRoleMemory !== state.settings.perRoleMemory)
    data.perRoleMemory = command.perRoleMemory;
  if (command.clock !== undefined && command.clock !== (state.settings.clock ?? 'story')) data.clock = command.clock;
  return Object.keys(data).length ? [{ type: 'CampaignSettingsChanged', data }] : [];
}
