import { conflict } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';
import { requireQuest } from './require';

export function completeQuest(state: CampaignState, command: CommandOf<'CompleteQuest'>): GameEvent[] {
  const quest = requireQuest(state, command.questId);
  if (quest.completed) throw conflict('QUEST_ALREADY_COMPLETED', `quest ${quest.id} is already completed`);
  return [{ type: 'QuestCompleted', data: { questId: quest.id } }];
}
