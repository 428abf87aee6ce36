import { conflict, notFound } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';
import { requireQuest } from './require';

export function completeObjective(state: CampaignState, command: CommandOf<'CompleteObjective'>): GameEvent[] {
  const quest = requireQuest(state, command.questId);
  const objective = quest.objectives.find((o) => o.id === command.objectiveId);
  if (!objective)
    throw notFound('OBJECTIVE_NOT_FOUND', `objective ${command.objectiveId} not found in quest ${quest.id}`);
  if (objective.completed)
    throw conflict('OBJECTIVE_ALREADY_COMPLETED', `objective ${objective.id} is already completed`);
  return [{ type: 'ObjectiveCompleted', data: { questId: quest.id, objectiveId: objective.id } }];
}
