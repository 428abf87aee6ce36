import { inTimedSlices } from '@app/common';
import { insertRows, sql } from '@app/database';
import type { StoredEvent } from '@app/event-store';
import type { MessageDoc, SearchIndex } from '@app/search';
import { EntityManager } from 'typeorm';
import { EventOf } from '../domain/events';
import { Message } from '../domain/state';
import { witnessesOf } from '../domain/witnessing';
import { InlineProjection, projection } from './inline-projection';
import { MessageRecord, ToolCallRecord } from './message.entity';
import { toMessageRecord } from './message.mapper';
import { MessageWitnessRecord } from './witness.entity';

const CHUNK = 200;
/** Messages of a batch's first insert (inTimedSlices sizes the next ones by its pace). */
const MESSAGE_SLICE = 50;

/** The rows of the recorded messages and of their tool calls. */
export const messageRows = projection({
  name: 'messages',
  canHandle: ['MessageRecorded'],
  async handle(events, { m, campaignId }) {
    // §13: a large batch in timed slices, the event loop given back between them (one message: one go).
    await inTimedSlices(events.length, { first: MESSAGE_SLICE, max: CHUNK }, (lo, hi) =>
      insertRows(
        m,
        MessageRecord,
        events.slice(lo, hi).map((e) => toMessageRecord(campaignId, e.data as Message, e.version)),
      ),
    );
    const calls = events
      .map((e) => e.data as Message)
      .flatMap((msg) =>
        msg.toolCalls.map((c) => ({ campaignId, callId: c.id, name: c.name, messageIndex: msg.index })),
      );
    for (let i = 0; i < calls.length; i += CHUNK)
      await insertRows(m, ToolCallRecord, calls.slice(i, i + CHUNK), { ignoreConflicts: true });
  },
});

/** Who witnessed each message (§8), judged from the state it was recorded in. */
export const messageWitnesses = projection({
  name: 'witnesses',
  canHandle: ['MessageRecorded'],
  async handle(events, { m, campaignId, stateBefore }) {
    const rows = events.flatMap((e) => {
      const msg = e.data as Message;
      return witnessesOf(stateBefore(e), msg).map((viewerId) => ({ campaignId, viewerId, index: msg.index }));
    });
    await inTimedSlices(rows.length, { first: CHUNK, max: CHUNK }, (lo, hi) =>
      insertRows(m, MessageWitnessRecord, rows.slice(lo, hi)),
    );
  },
});

/** §10: a retracted message is withheld from every read from this commit on; it keeps its index (and its row). */
export const retractedMessages = projection({
  name: 'retractions',
  canHandle: ['MessagesRetracted'],
  async handle(events, { m, campaignId }) {
    for (const e of events) await withholdRetracted(m, campaignId, e);
  },
});

async function withholdRetracted(m: EntityManager, campaignId: string, e: StoredEvent): Promise<void> {
  const { indexes, reason } = (e as StoredEvent & { data: EventOf<'MessagesRetracted'>['data'] }).data;
  for (let i = 0; i < indexes.length; i += CHUNK) {
    const chunk = indexes.slice(i, i + CHUNK);
    await sql(
      m,
      'UPDATE "messages" SET "retracted_version" = ?, "retract_reason" = ? WHERE "campaign_id" = ? ' +
        `AND "idx" IN (${chunk.map(() => '?').join(', ')})`,
      [e.version, reason, campaignId, ...chunk],
    );
  }
}

/** The campaign's own projections, first in every projector's list. */
export const CAMPAIGN_PROJECTIONS: readonly InlineProjection[] = [messageRows, messageWitnesses, retractedMessages];

export const toMessageDoc = (m: Message): MessageDoc => ({
  index: m.index,
  role: m.role,
  locationId: m.locationId,
  at: m.at,
  round: m.round,
  content: m.content,
  reasoning: m.reasoning,
});

/** Listeners told of recorded messages in the append's transaction (a test's, or any index). */
export interface MessageIndexer {
  indexMessages(m: EntityManager, campaignId: string, messages: Message[]): Promise<void>;
}

/** Recorded messages to an indexer, in the append's transaction. */
export const messageIndexing = (indexer: MessageIndexer): InlineProjection =>
  projection({
    name: 'message-index',
    canHandle: ['MessageRecorded'],
    handle: (events, { m, campaignId }) =>
      indexer.indexMessages(
        m,
        campaignId,
        events.map((e) => e.data as Message),
      ),
  });

/** The search index's rows of recorded messages (content and reasoning, §7): campaign indexes what it owns. */
export const messageSearch = (index: Pick<SearchIndex, 'indexMessages'>): InlineProjection => ({
  ...messageIndexing({
    indexMessages: (m, campaignId, messages) => index.indexMessages(m, campaignId, messages.map(toMessageDoc)),
  }),
  name: 'search',
});
