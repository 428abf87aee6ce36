import { campaignExists } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';

export function createCampaign(state: CampaignState, command: CommandOf<'CreateCampaign'>): GameEvent[] {
  if (state.version > 0) throw campaignExists(state.id);
  const settings = { perRoleMemory: command.perRoleMemory ?? false };
  return [{ type: 'CampaignCreated', data: { campaignId: state.id, name: command.name, settings } }];
}
