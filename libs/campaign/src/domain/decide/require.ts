import { notFound } from '@app/common';
import { CampaignState } from '../state';

/** The location a command names; 404 LOCATION_NOT_FOUND, the field named by `where`, when it is unknown. */
export function requireLocation(state: CampaignState, id: string, where = 'locationId') {
  const location = state.locations[id];
  if (!location) throw notFound('LOCATION_NOT_FOUND', `${where}: location ${id} not found`);
  return location;
}

export function requireQuest(state: CampaignState, id: string) {
  const quest = state.quests[id];
  if (!quest) throw notFound('QUEST_NOT_FOUND', `quest ${id} not found`);
  return quest;
}

export const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
