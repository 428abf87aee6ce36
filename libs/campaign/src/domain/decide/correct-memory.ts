import { memoryNotFound } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';

/** §10 GM correction (lane 0's minimal version; lane 5 owns the full rules). `exists` is memory's answer. */
export function correctMemory(_state: CampaignState, command: CommandOf<'CorrectMemory'>): GameEvent[] {
  if (!command.exists) throw memoryNotFound(command.memoryId);
  return [{ type: 'MemoryCorrected', data: { memoryId: command.memoryId, summary: command.summary } }];
}
