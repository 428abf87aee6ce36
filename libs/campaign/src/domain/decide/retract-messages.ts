import { messageNotFound, messageRetracted } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';

/** §10 retraction, all or nothing (lane 0's minimal version; lane 5 owns the full rules). */
export function retractMessages(state: CampaignState, command: CommandOf<'RetractMessages'>): GameEvent[] {
  for (const index of command.indexes) {
    if (!Number.isInteger(index) || index < 0 || index >= state.messageCount) throw messageNotFound(index);
    if (command.retracted?.has(index)) throw messageRetracted(index);
  }
  return [{ type: 'MessagesRetracted', data: { indexes: [...command.indexes], reason: command.reason ?? null } }];
}
