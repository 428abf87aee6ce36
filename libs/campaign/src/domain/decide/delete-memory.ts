import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';
import { requireMemory } from './correct-memory';

/** The game master deletes a memory (DESIGN §10): never served again; a second delete is 404. */
export function deleteMemory(_state: CampaignState, command: CommandOf<'DeleteMemory'>): GameEvent[] {
  requireMemory(command);
  return [{ type: 'MemoryDeleted', data: { memoryId: command.memoryId } }];
}
