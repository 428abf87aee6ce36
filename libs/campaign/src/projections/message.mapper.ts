import { Message, MessageRole, Visibility } from '../domain/state';
import { MessageRecord } from './message.entity';

export function toMessageRecord(campaignId: string, m: Message, version: number): MessageRecord {
  return Object.assign(new MessageRecord(), {
    campaignId,
    index: m.index,
    role: m.role,
    speaker: m.speaker,
    content: m.content,
    locationId: m.locationId,
    npcIds: JSON.stringify(m.npcIds),
    at: m.at,
    round: m.round,
    visibility: m.visibility,
    audience: JSON.stringify(m.audience),
    toolCalls: JSON.stringify(m.toolCalls),
    toolCallId: m.toolCallId,
    reasoning: m.reasoning,
    version,
    storyTime: m.storyTime ?? null,
    atFilled: m.atFilled ? 1 : 0,
  });
}

export function fromMessageRecord(r: MessageRecord): Message & { version: number } {
  return {
    index: Number(r.index),
    role: r.role as MessageRole,
    speaker: r.speaker,
    content: r.content,
    locationId: r.locationId,
    npcIds: JSON.parse(r.npcIds),
    at: r.at,
    round: Number(r.round),
    visibility: r.visibility as Visibility,
    audience: JSON.parse(r.audience),
    toolCalls: JSON.parse(r.toolCalls),
    toolCallId: r.toolCallId,
    reasoning: r.reasoning,
    version: Number(r.version),
    ...(r.storyTime ? { storyTime: r.storyTime } : {}),
    ...(Number(r.atFilled) ? { atFilled: true } : {}),
  };
}
