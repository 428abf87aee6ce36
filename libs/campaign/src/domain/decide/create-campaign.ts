import { campaignExists } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';

export function createCampaign(state: CampaignState, command: CommandOf<'CreateCampaign'>): GameEvent[] {
  if (state.version > 0) throw campaignExists(state.id);
  // §8 `clock` is stored only when given (absent = story), so campaigns keep the head rows they always had.
  const settings = {
    perRoleMemory: command.perRoleMemory ?? false,
    ...(command.clock ? { clock: command.clock } : {}),
  };
  return [{ type: 'CampaignCreated', data: { campaignId: state.id, name: command.name, settings } }];
}
