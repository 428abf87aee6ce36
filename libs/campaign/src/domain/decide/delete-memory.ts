import { memoryNotFound } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';

/** §10 GM deletion (lane 0's minimal version; lane 5 owns the full rules). `exists` is memory's answer. */
export function deleteMemory(_state: CampaignState, command: CommandOf<'DeleteMemory'>): GameEvent[] {
  if (!command.exists) throw memoryNotFound(command.memoryId);
  return [{ type: 'MemoryDeleted', data: { memoryId: command.memoryId } }];
}
