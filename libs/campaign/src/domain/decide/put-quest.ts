import { invalid } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';
import { sameList } from './require';

export function putQuest(state: CampaignState, command: CommandOf<'PutQuest'>): GameEvent[] {
  const ids = command.objectives.map((o) => o.id);
  if (new Set(ids).size !== ids.length)
    throw invalid('DUPLICATE_OBJECTIVE_ID', 'objective ids must be unique within a quest');
  const prev = state.quests[command.questId];
  const pairs = (os: { id: string; name: string }[]) => os.map((o) => `${o.id}\u0000${o.name}`);
  if (prev && prev.name === command.name && sameList(pairs(prev.objectives), pairs(command.objectives))) return [];
  const objectives = command.objectives.map((o) => ({ id: o.id, name: o.name }));
  return [{ type: 'QuestRegistered', data: { questId: command.questId, name: command.name, objectives } }];
}
