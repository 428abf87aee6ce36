import { conflict } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';

export function progressAct(state: CampaignState, command: CommandOf<'ProgressAct'>): GameEvent[] {
  if (state.currentActId === command.actId)
    throw conflict('ALREADY_IN_ACT', `the campaign is already in act ${command.actId}`);
  return [{ type: 'ActProgressed', data: { fromActId: state.currentActId, toActId: command.actId } }];
}
