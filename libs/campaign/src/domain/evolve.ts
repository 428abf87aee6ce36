import { GameEvent } from './events';
import { glossaryKey } from './glossary-key';
import { CampaignState, GlossaryOverride } from './state';
import { evolveWorldState } from './world-state';

/** Applies one game event to the state (pure; the caller bumps `version`, which the event will have). */
export function evolve(
  state: CampaignState,
  event: GameEvent,
  recordedAt = '',
  version = state.version + 1,
): CampaignState {
  switch (event.type) {
    case 'CampaignCreated':
      return { ...state, name: event.data.name, settings: { ...event.data.settings }, createdAt: recordedAt };
    case 'CampaignSettingsChanged':
      return { ...state, settings: { ...state.settings, ...event.data } };
    case 'LocationRegistered':
    case 'LocationRenamed':
      return putLocation(state, event.data);
    case 'NpcRegistered':
    case 'NpcUpdated':
      return putNpc(state, event.data);
    case 'QuestRegistered':
      return putQuest(state, event.data);
    case 'MessageRecorded':
      return { ...state, messageCount: Math.max(state.messageCount, event.data.index + 1) };
    case 'LocationChanged':
      return placePlayers({ ...state, currentLocationId: event.data.toLocationId }, event.data.playerLocations);
    case 'ObjectiveCompleted':
    case 'QuestCompleted':
      return completeQuestPart(state, event);
    case 'ActProgressed':
      return { ...state, currentActId: event.data.toActId };
    case 'LocationStateUpdated':
      return updateLocationState(state, event.data);
    case 'RoundEnded':
      return { ...state, round: event.data.round + 1, roundEnds: [...(state.roundEnds ?? []), version] };
    case 'StoryTimeSet':
      return { ...state, storyTime: event.data.storyTime };
    case 'BibleUpdated':
      return { ...state, bible: { text: event.data.text, dmOnly: event.data.dmOnly } };
    case 'GlossaryTermSet':
    case 'GlossaryTermHidden':
      return overrideGlossary(state, event);
    case 'CampaignForked':
      return {
        ...state,
        name: event.data.name,
        parent: { id: event.data.parentId, version: event.data.parentVersion },
      };
    // The timeline lives in campaign_timelines, messages and memories outside the state: nothing to fold.
    case 'CampaignRewound':
    case 'MessagesRetracted':
    case 'MemoryCorrected':
    case 'MemoryDeleted':
      return state;
    case 'FactAsserted':
    case 'FactResolved':
    case 'PlayerRegistered':
    case 'PlayerUpdated':
    case 'AccountLoggedIn':
    case 'AccountLoggedOut':
      return evolveWorldState(state, event, recordedAt);
  }
}

type EventOf<T extends GameEvent['type']> = Extract<GameEvent, { type: T }>;

function putNpc(
  state: CampaignState,
  { npcId, name, aliases, locationId }: EventOf<'NpcRegistered'>['data'],
): CampaignState {
  return { ...state, npcs: { ...state.npcs, [npcId]: { id: npcId, name, aliases: [...aliases], locationId } } };
}

function putLocation(
  state: CampaignState,
  { locationId, name, dangerLevel }: EventOf<'LocationRegistered'>['data'],
): CampaignState {
  const completedEncounters = state.locations[locationId]?.completedEncounters ?? [];
  return {
    ...state,
    locations: { ...state.locations, [locationId]: { id: locationId, name, dangerLevel, completedEncounters } },
  };
}

function updateLocationState(state: CampaignState, data: EventOf<'LocationStateUpdated'>['data']): CampaignState {
  const { locationId, dangerLevel, completedEncounterId } = data;
  const l = state.locations[locationId];
  const completedEncounters = completedEncounterId
    ? [...l.completedEncounters, completedEncounterId]
    : l.completedEncounters;
  const next = { ...l, dangerLevel: dangerLevel ?? l.dangerLevel, completedEncounters };
  return { ...state, locations: { ...state.locations, [locationId]: next } };
}

function putQuest(
  state: CampaignState,
  { questId, name, objectives }: EventOf<'QuestRegistered'>['data'],
): CampaignState {
  const prev = state.quests[questId];
  const done = new Set(prev?.objectives.filter((o) => o.completed).map((o) => o.id));
  const quest = {
    id: questId,
    name,
    completed: prev?.completed ?? false,
    objectives: objectives.map((o) => ({ ...o, completed: done.has(o.id) })),
  };
  return { ...state, quests: { ...state.quests, [questId]: quest } };
}

function completeQuestPart(
  state: CampaignState,
  event: EventOf<'ObjectiveCompleted' | 'QuestCompleted'>,
): CampaignState {
  const q = state.quests[event.data.questId];
  if (event.type === 'QuestCompleted')
    return { ...state, quests: { ...state.quests, [q.id]: { ...q, completed: true } } };
  const objectives = q.objectives.map((o) => (o.id === event.data.objectiveId ? { ...o, completed: true } : o));
  return { ...state, quests: { ...state.quests, [q.id]: { ...q, objectives } } };
}

function overrideGlossary(
  state: CampaignState,
  event: EventOf<'GlossaryTermSet' | 'GlossaryTermHidden'>,
): CampaignState {
  const key = glossaryKey(event.data.term);
  const prev = state.glossary?.[key];
  const next: GlossaryOverride =
    event.type === 'GlossaryTermSet'
      ? { term: prev?.term ?? event.data.term, definition: event.data.definition, hidden: false }
      : { term: prev?.term ?? event.data.term, definition: prev?.definition ?? null, hidden: true };
  return { ...state, glossary: { ...state.glossary, [key]: next } };
}

/** Folds a sequence of events into state, tracking the stream version. */
export function fold(
  state: CampaignState,
  events: { event: GameEvent; version: number; recordedAt: string }[],
): CampaignState {
  return events.reduce((s, e) => ({ ...evolve(s, e.event, e.recordedAt, e.version), version: e.version }), state);
}

/** §8 split parties: players placed apart (a location) or back with the party (null). */
function placePlayers(state: CampaignState, placed?: Record<string, string | null>): CampaignState {
  if (!placed) return state;
  const players = { ...state.players };
  for (const [id, locationId] of Object.entries(placed)) {
    const { locationId: _was, ...player } = players[id];
    players[id] = locationId === null ? player : { ...player, locationId };
  }
  return { ...state, players };
}
