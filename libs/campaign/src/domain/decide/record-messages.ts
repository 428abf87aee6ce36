import { invalid, notFound } from '@app/common';
import { CommandOf, MessageInput } from '../commands';
import { GameEvent } from '../events';
import { CampaignState, Message } from '../state';
import { isCharacter, playerLocation, speakerKeys } from '../witnessing';
import { requireLocation } from './require';

export function recordMessages(state: CampaignState, command: CommandOf<'RecordMessages'>): GameEvent[] {
  const callIds = new Set(command.knownToolCallIds ?? []);
  const batchCallIds = new Set<string>();
  // §8: a message without a story time is at the campaign's then; one that gives a new one sets it from there on.
  let storyTime = state.storyTime ?? null;
  return command.messages.flatMap((m, i): GameEvent[] => {
    const at = `messages[${i}]`;
    const locationId = m.locationId === undefined ? defaultLocation(state, m.speaker) : m.locationId;
    checkReferences(state, m, at, locationId, callIds);
    for (const call of m.toolCalls ?? []) {
      // A result names its call by id: an id made twice in one batch could answer either call.
      if (batchCallIds.has(call.id)) {
        throw invalid('DUPLICATE_TOOL_CALL_ID', `${at}.toolCalls: tool call id ${call.id} appears twice in this batch`);
      }
      batchCallIds.add(call.id);
      callIds.add(call.id);
    }
    const set: GameEvent[] = [];
    if (m.storyTime !== undefined && m.storyTime !== storyTime) {
      storyTime = m.storyTime;
      set.push({ type: 'StoryTimeSet', data: { storyTime } });
    }
    const message = toMessage(state, m, state.messageCount + i, locationId, command.now);
    return [...set, { type: 'MessageRecorded', data: { ...message, ...storyFields(storyTime, m) } }];
  });
}

/**
 * §8 split parties: a message is where its speaker is when the speaker is a player or NPC (with a location), else at
 * the campaign's current location.
 */
function defaultLocation(state: CampaignState, speaker: string | null | undefined): string | null {
  for (const key of speakerKeys(state, speaker)) {
    const [kind, id] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    const at = kind === 'player' ? playerLocation(state, state.players[id]) : state.npcs[id]?.locationId;
    if (at) return at;
  }
  return state.currentLocationId;
}

/** Everything a message names must exist: its location, NPCs, the tool call it answers, its audience. */
function checkReferences(
  state: CampaignState,
  m: MessageInput,
  at: string,
  locationId: string | null,
  callIds: ReadonlySet<string>,
) {
  if (locationId !== null) requireLocation(state, locationId, `${at}.locationId`);
  for (const npcId of m.npcIds ?? []) {
    if (!state.npcs[npcId]) throw notFound('NPC_NOT_FOUND', `${at}.npcIds: NPC ${npcId} not found`);
  }
  if (m.toolCallId !== undefined && !callIds.has(m.toolCallId)) {
    throw notFound('TOOL_CALL_NOT_FOUND', `${at}.toolCallId: no earlier message made tool call ${m.toolCallId}`);
  }
  const visibility = m.visibility ?? 'public';
  const audience = m.audience ?? [];
  if (visibility === 'private' && audience.length === 0)
    throw invalid('AUDIENCE_REQUIRED', `${at}: a private message needs an audience`);
  for (const id of audience) {
    if (!isCharacter(state, id))
      throw notFound('AUDIENCE_NOT_FOUND', `${at}.audience: ${id} is not a known player or NPC`);
  }
}

/** Story time and whether the server filled `at`, only when there is something to say (events stay as they were). */
function storyFields(storyTime: string | null, m: MessageInput): Partial<Message> {
  return { ...(storyTime !== null ? { storyTime } : {}), ...(m.at === undefined ? { atFilled: true } : {}) };
}

function toMessage(
  state: CampaignState,
  m: MessageInput,
  index: number,
  locationId: string | null,
  now: string,
): Message {
  return {
    index,
    role: m.role,
    speaker: m.speaker ?? null,
    content: m.content,
    locationId,
    npcIds: [...new Set(m.npcIds ?? [])],
    at: m.at ?? now,
    round: state.round,
    visibility: m.visibility ?? 'public',
    audience: m.audience ?? [],
    toolCalls: m.toolCalls ?? [],
    toolCallId: m.toolCallId ?? null,
    reasoning: m.reasoning ?? null,
  };
}
