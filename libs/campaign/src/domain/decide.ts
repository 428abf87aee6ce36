import { conflict, invalid, notFound } from '@app/common';
import { CampaignCommand, MessageInput } from './commands';
import { GameEvent } from './events';
import { glossaryKey } from './glossary-key';
import { CampaignState, Message } from './state';
import { isCharacter } from './witnessing';
import { decideWorldState } from './world-state';

/** Each part of the bible, in characters (DESIGN §8). */
export const BIBLE_MAX_CHARS = 32_000;

/** Validates a command against the state and returns the events it causes (pure). */
export function decide(state: CampaignState, command: CampaignCommand): GameEvent[] {
  if (command.type === 'CreateCampaign') {
    if (state.version > 0) throw conflict('CAMPAIGN_EXISTS', `campaign ${state.id} already exists`);
    return [{ type: 'CampaignCreated', data: { campaignId: state.id, name: command.name, settings: { perRoleMemory: command.perRoleMemory ?? false } } }];
  }
  if (state.version === 0) throw notFound('CAMPAIGN_NOT_FOUND', `campaign ${state.id} not found`);
  switch (command.type) {
    case 'ChangeSettings':
      if (command.perRoleMemory === undefined || command.perRoleMemory === state.settings.perRoleMemory) return [];
      return [{ type: 'CampaignSettingsChanged', data: { perRoleMemory: command.perRoleMemory } }];
    case 'PutLocation': {
      const prev = state.locations[command.locationId];
      const dangerLevel = command.dangerLevel ?? prev?.dangerLevel ?? null;
      const data = { locationId: command.locationId, name: command.name, dangerLevel };
      if (!prev) return [{ type: 'LocationRegistered', data }];
      if (prev.name === command.name && prev.dangerLevel === dangerLevel) return [];
      return [{ type: 'LocationRenamed', data }];
    }
    case 'PutNpc': {
      const prev = state.npcs[command.npcId];
      // One id, one character: an NPC sharing a player's id would read as that player in audiences and keys.
      if (!prev && Object.hasOwn(state.players ?? {}, command.npcId)) throw conflict('CHARACTER_ID_TAKEN', `${command.npcId} is a player; an NPC needs an id of its own`);
      const locationId = command.locationId === undefined ? (prev?.locationId ?? null) : command.locationId;
      if (locationId !== null) requireLocation(state, locationId);
      const aliases = command.aliases ?? prev?.aliases ?? [];
      const base = { npcId: command.npcId, name: command.name, aliases, locationId };
      if (!prev) return [{ type: 'NpcRegistered', data: base }];
      if (prev.name === base.name && prev.locationId === locationId && sameList(prev.aliases, aliases)) return [];
      return [{ type: 'NpcUpdated', data: { ...base, fromLocationId: prev.locationId } }];
    }
    case 'PutQuest': {
      const ids = command.objectives.map((o) => o.id);
      if (new Set(ids).size !== ids.length) throw invalid('DUPLICATE_OBJECTIVE_ID', 'objective ids must be unique within a quest');
      const prev = state.quests[command.questId];
      if (prev && prev.name === command.name && sameList(prev.objectives.map((o) => `${o.id}\u0000${o.name}`), command.objectives.map((o) => `${o.id}\u0000${o.name}`))) {
        return [];
      }
      return [{ type: 'QuestRegistered', data: { questId: command.questId, name: command.name, objectives: command.objectives.map((o) => ({ id: o.id, name: o.name })) } }];
    }
    case 'RecordMessages':
      return recordMessages(state, command.messages, command.now, command.knownToolCallIds ?? new Set());
    case 'ChangeLocation': {
      requireLocation(state, command.toLocationId);
      if (state.currentLocationId === command.toLocationId) throw conflict('ALREADY_THERE', `the party is already at ${command.toLocationId}`);
      const from = state.currentLocationId;
      const npcsPresent = from === null ? [] : Object.values(state.npcs).filter((n) => n.locationId === from).map((n) => n.id).sort();
      return [{ type: 'LocationChanged', data: { fromLocationId: from, toLocationId: command.toLocationId, npcsPresent } }];
    }
    case 'CompleteObjective': {
      const quest = requireQuest(state, command.questId);
      const objective = quest.objectives.find((o) => o.id === command.objectiveId);
      if (!objective) throw notFound('OBJECTIVE_NOT_FOUND', `objective ${command.objectiveId} not found in quest ${quest.id}`);
      if (objective.completed) throw conflict('OBJECTIVE_ALREADY_COMPLETED', `objective ${objective.id} is already completed`);
      return [{ type: 'ObjectiveCompleted', data: { questId: quest.id, objectiveId: objective.id } }];
    }
    case 'CompleteQuest': {
      const quest = requireQuest(state, command.questId);
      if (quest.completed) throw conflict('QUEST_ALREADY_COMPLETED', `quest ${quest.id} is already completed`);
      return [{ type: 'QuestCompleted', data: { questId: quest.id } }];
    }
    case 'ProgressAct':
      if (state.currentActId === command.actId) throw conflict('ALREADY_IN_ACT', `the campaign is already in act ${command.actId}`);
      return [{ type: 'ActProgressed', data: { fromActId: state.currentActId, toActId: command.actId } }];
    case 'UpdateLocationState': {
      const location = requireLocation(state, command.locationId);
      if (command.dangerLevel === undefined && command.completeEncounter === undefined) {
        throw invalid('NOTHING_TO_UPDATE', 'give dangerLevel and/or completeEncounter');
      }
      if (command.completeEncounter !== undefined && location.completedEncounters.includes(command.completeEncounter)) {
        throw conflict('ENCOUNTER_ALREADY_COMPLETED', `encounter ${command.completeEncounter} is already completed`);
      }
      if (command.completeEncounter === undefined && command.dangerLevel === location.dangerLevel) {
        throw conflict('DANGER_LEVEL_UNCHANGED', `location ${location.id} is already ${location.dangerLevel}`);
      }
      const data: Extract<GameEvent, { type: 'LocationStateUpdated' }>['data'] = { locationId: location.id, fromDangerLevel: location.dangerLevel };
      if (command.dangerLevel !== undefined) data.dangerLevel = command.dangerLevel;
      if (command.completeEncounter !== undefined) data.completedEncounterId = command.completeEncounter;
      return [{ type: 'LocationStateUpdated', data }];
    }
    case 'EndRound':
      return [{ type: 'RoundEnded', data: { round: state.round } }];
    case 'PutBible': {
      const dmOnly = command.dmOnly ?? state.bible?.dmOnly ?? '';
      for (const [part, text] of [['text', command.text], ['dmOnly', dmOnly]] as const) {
        const chars = [...text].length;
        if (chars > BIBLE_MAX_CHARS) throw invalid('BIBLE_TOO_LARGE', `bible ${part} has ${chars} characters; at most ${BIBLE_MAX_CHARS}`);
      }
      if (state.bible && state.bible.text === command.text && state.bible.dmOnly === dmOnly) return [];
      return [{ type: 'BibleUpdated', data: { text: command.text, dmOnly } }];
    }
    case 'SetGlossaryTerm': {
      const prev = state.glossary?.[glossaryKey(command.term)];
      if (prev && !prev.hidden && prev.definition === command.definition) return [];
      return [{ type: 'GlossaryTermSet', data: { term: command.term, definition: command.definition } }];
    }
    case 'HideGlossaryTerm': {
      const prev = state.glossary?.[glossaryKey(command.term)];
      if (!prev && !command.coined) throw notFound('GLOSSARY_TERM_NOT_FOUND', `the glossary has no term "${command.term}"`);
      if (prev?.hidden) return [];
      return [{ type: 'GlossaryTermHidden', data: { term: command.term } }];
    }
    case 'AssertFact':
    case 'ResolveFact':
    case 'PutPlayer':
    case 'LogInAccount':
    case 'LogOutAccount':
      return decideWorldState(state, command);
  }
}

function recordMessages(state: CampaignState, inputs: MessageInput[], now: string, knownToolCallIds: ReadonlySet<string>): GameEvent[] {
  const callIds = new Set(knownToolCallIds);
  const batchCallIds = new Set<string>();
  return inputs.map((m, i) => {
    const at = `messages[${i}]`;
    const locationId = m.locationId === undefined ? state.currentLocationId : m.locationId;
    if (locationId !== null) requireLocation(state, locationId, `${at}.locationId`);
    for (const npcId of m.npcIds ?? []) {
      if (!state.npcs[npcId]) throw notFound('NPC_NOT_FOUND', `${at}.npcIds: NPC ${npcId} not found`);
    }
    if (m.toolCallId !== undefined && !callIds.has(m.toolCallId)) {
      throw notFound('TOOL_CALL_NOT_FOUND', `${at}.toolCallId: no earlier message made tool call ${m.toolCallId}`);
    }
    const visibility = m.visibility ?? 'public';
    const audience = m.audience ?? [];
    if (visibility === 'private' && audience.length === 0) throw invalid('AUDIENCE_REQUIRED', `${at}: a private message needs an audience`);
    for (const id of audience) {
      if (!isCharacter(state, id)) throw notFound('AUDIENCE_NOT_FOUND', `${at}.audience: ${id} is not a known player or NPC`);
    }
    for (const call of m.toolCalls ?? []) {
      // A result names its call by id: an id made twice in one batch could answer either call.
      if (batchCallIds.has(call.id)) throw invalid('DUPLICATE_TOOL_CALL_ID', `${at}.toolCalls: tool call id ${call.id} appears twice in this batch`);
      batchCallIds.add(call.id);
      callIds.add(call.id);
    }
    const message: Message = {
      index: state.messageCount + i,
      role: m.role,
      speaker: m.speaker ?? null,
      content: m.content,
      locationId,
      npcIds: [...new Set(m.npcIds ?? [])],
      at: m.at ?? now,
      round: state.round,
      visibility,
      audience,
      toolCalls: m.toolCalls ?? [],
      toolCallId: m.toolCallId ?? null,
      reasoning: m.reasoning ?? null,
    };
    return { type: 'MessageRecorded', data: message };
  });
}

function requireLocation(state: CampaignState, id: string, where = 'locationId') {
  const location = state.locations[id];
  if (!location) throw notFound('LOCATION_NOT_FOUND', `${where}: location ${id} not found`);
  return location;
}

function requireQuest(state: CampaignState, id: string) {
  const quest = state.quests[id];
  if (!quest) throw notFound('QUEST_NOT_FOUND', `quest ${id} not found`);
  return quest;
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

