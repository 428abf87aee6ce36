import { GameEvent } from './events';
import { CampaignState } from './state';
import { evolveWorldState } from './world-state';

/** Applies one game event to the state (pure; the caller bumps `version`). */
export function evolve(state: CampaignState, event: GameEvent, recordedAt = ''): CampaignState {
  switch (event.type) {
    case 'CampaignCreated':
      return { ...state, name: event.data.name, settings: { ...event.data.settings }, createdAt: recordedAt };
    case 'CampaignSettingsChanged':
      return { ...state, settings: { ...state.settings, ...event.data } };
    case 'LocationRegistered':
    case 'LocationRenamed': {
      const { locationId, name, dangerLevel } = event.data;
      const prev = state.locations[locationId];
      return {
        ...state,
        locations: { ...state.locations, [locationId]: { id: locationId, name, dangerLevel, completedEncounters: prev?.completedEncounters ?? [] } },
      };
    }
    case 'NpcRegistered':
    case 'NpcUpdated': {
      const { npcId, name, aliases, locationId } = event.data;
      return { ...state, npcs: { ...state.npcs, [npcId]: { id: npcId, name, aliases: [...aliases], locationId } } };
    }
    case 'QuestRegistered': {
      const { questId, name, objectives } = event.data;
      const prev = state.quests[questId];
      const done = new Set(prev?.objectives.filter((o) => o.completed).map((o) => o.id));
      return {
        ...state,
        quests: {
          ...state.quests,
          [questId]: { id: questId, name, completed: prev?.completed ?? false, objectives: objectives.map((o) => ({ ...o, completed: done.has(o.id) })) },
        },
      };
    }
    case 'MessageRecorded':
      return { ...state, messageCount: Math.max(state.messageCount, event.data.index + 1) };
    case 'LocationChanged':
      return { ...state, currentLocationId: event.data.toLocationId };
    case 'ObjectiveCompleted': {
      const q = state.quests[event.data.questId];
      const objectives = q.objectives.map((o) => (o.id === event.data.objectiveId ? { ...o, completed: true } : o));
      return { ...state, quests: { ...state.quests, [q.id]: { ...q, objectives } } };
    }
    case 'QuestCompleted': {
      const q = state.quests[event.data.questId];
      return { ...state, quests: { ...state.quests, [q.id]: { ...q, completed: true } } };
    }
    case 'ActProgressed':
      return { ...state, currentActId: event.data.toActId };
    case 'LocationStateUpdated': {
      const { locationId, dangerLevel, completedEncounterId } = event.data;
      const l = state.locations[locationId];
      const completedEncounters = completedEncounterId ? [...l.completedEncounters, completedEncounterId] : l.completedEncounters;
      return { ...state, locations: { ...state.locations, [locationId]: { ...l, dangerLevel: dangerLevel ?? l.dangerLevel, completedEncounters } } };
    }
    case 'RoundEnded':
      return { ...state, round: event.data.round + 1 };
    case 'FactAsserted':
    case 'FactResolved':
    case 'PlayerRegistered':
    case 'PlayerUpdated':
    case 'AccountLoggedIn':
    case 'AccountLoggedOut':
      return evolveWorldState(state, event, recordedAt);
  }
}

/** Folds a sequence of events into state, tracking the stream version. */
export function fold(state: CampaignState, events: { event: GameEvent; version: number; recordedAt: string }[]): CampaignState {
  return events.reduce((s, e) => ({ ...evolve(s, e.event, e.recordedAt), version: e.version }), state);
}
