import { StoredEvent } from '@app/event-store';
import { insertRows, sql, transactionLocal } from '@app/database';
import { EntityManager } from 'typeorm';
import { GameEvent } from '../domain/events';
import { evolve } from '../domain/evolve';
import { witnessesOf } from '../domain/witnessing';
import { CampaignState, emptyState, Message } from '../domain/state';
import { CampaignRecord } from './campaign.entity';
import { MessageRecord, ToolCallRecord } from './message.entity';
import { MessageWitnessRecord } from './witness.entity';
import { toMessageRecord } from './message.mapper';
import { CampaignStateCache } from './campaign-state.cache';
import { readCampaignRow } from './campaign-row';

const CHUNK = 200;

/** Listeners that index projections in the same transaction (e.g. the search index, §7). */
export interface MessageIndexer {
  indexMessages(m: EntityManager, campaignId: string, messages: Message[]): Promise<void>;
}

/** Another lib's projection of game events, run in the append's transaction (e.g. game accounts, §5). */
export interface GameEventProjection {
  project(m: EntityManager, campaignId: string, events: StoredEvent[]): Promise<void>;
}

/** Inline projections of the game stream: campaign state, messages, tool calls. */
export class CampaignProjector {
  private readonly indexers: MessageIndexer[] = [];
  private readonly projections: GameEventProjection[] = [];
  /** JSON size of each state `apply` wrote, for the cache's bound. */
  private readonly docChars = new WeakMap<CampaignState, number>();
  /**
   * Key of the states written in the running transaction, by campaign: the next write of a campaign
   * in the same SQLite commit group needs a version no commit has put in the cache yet, and would
   * otherwise read the row and parse the whole document again. `transactionLocal` drops them when a
   * member's savepoint is rolled back, so one found there is the row's current state.
   */
  private readonly written = {};

  constructor(readonly cache = new CampaignStateCache()) {}

  addIndexer(indexer: MessageIndexer): void {
    this.indexers.push(indexer);
  }

  addProjection(projection: GameEventProjection): void {
    this.projections.push(projection);
  }

  /** Empties this projector's tables inside `m` (a rebuild replays the game streams into them next). */
  async reset(m: EntityManager): Promise<void> {
    for (const table of ['message_witnesses', 'tool_calls', 'messages', 'campaigns'])
      await sql(m, `DELETE FROM "${table}"`);
  }

  /** The campaign's state as of its row's version: from the cache when it has that version, else parsed. */
  async load(m: EntityManager, campaignId: string): Promise<CampaignState> {
    const written = this.writtenIn(m).get(campaignId);
    if (written) return written;
    const row = await readCampaignRow(m, campaignId, this.cache);
    if (!row) return emptyState(campaignId);
    if (row.parsedChars !== null) this.docChars.set(row.state, row.parsedChars);
    return row.state;
  }

  /** After the commit of a transaction that loaded or applied `state`: later reads may reuse it. */
  committed(state: CampaignState): void {
    this.cache.put(state, this.docChars.get(state) ?? JSON.stringify(state).length);
  }

  /** Applies appended events; returns the new state. Runs inside the append's transaction. */
  async apply(m: EntityManager, before: CampaignState, events: StoredEvent[]): Promise<CampaignState> {
    // Folded one event at a time: each message's witnesses are judged from the state it was recorded in.
    // §10: a new campaign starts in timeline 1; a loaded one carries its row's (so written and read states agree).
    let after = before.timeline === undefined ? { ...before, timeline: 1 } : before;
    const witnesses: Pick<MessageWitnessRecord, 'campaignId' | 'viewerId' | 'index'>[] = [];
    for (const e of events) {
      if (e.type === 'MessageRecorded') {
        const msg = e.data as Message;
        for (const viewerId of witnessesOf(after, msg))
          witnesses.push({ campaignId: after.id, viewerId, index: msg.index });
      }
      after = {
        ...evolve(after, { type: e.type, data: e.data } as GameEvent, e.recordedAt, e.version),
        version: e.version,
      };
    }
    const doc = JSON.stringify(after);
    this.docChars.set(after, doc.length);
    if (before.version === 0) {
      await insertRows(m, CampaignRecord, [
        {
          id: after.id,
          name: after.name,
          version: after.version,
          state: doc,
          createdAt: after.createdAt,
          timeline: after.timeline ?? 1,
          messageCount: after.messageCount,
          parentId: after.parent?.id ?? null,
          parentVersion: after.parent?.version ?? null,
        },
      ]);
    } else {
      const res = await sql(
        m,
        'UPDATE "campaigns" SET "version" = ?, "name" = ?, "state" = ?, "message_count" = ?, "parent_id" = ?, ' +
          '"parent_version" = ? WHERE "id" = ? AND "version" = ?',
        [
          after.version,
          after.name,
          doc,
          after.messageCount,
          after.parent?.id ?? null,
          after.parent?.version ?? null,
          after.id,
          before.version,
        ],
      );
      if (res.changes === 0) throw new Error(`campaign ${after.id} moved during append`);
    }
    // Kept from here on: should what follows fail, the rollback of this member's savepoint drops it.
    this.writtenIn(m).set(after.id, after);
    const messages = events.filter((e) => e.type === 'MessageRecorded');
    const recorded = messages.map((e) => e.data as Message);
    for (let i = 0; i < messages.length; i += CHUNK) {
      await insertRows(
        m,
        MessageRecord,
        messages.slice(i, i + CHUNK).map((e) => toMessageRecord(after.id, e.data as Message, e.version)),
      );
    }
    const calls = recorded.flatMap((msg) =>
      msg.toolCalls.map((c) => ({ campaignId: after.id, callId: c.id, name: c.name, messageIndex: msg.index })),
    );
    for (let i = 0; i < calls.length; i += CHUNK)
      await insertRows(m, ToolCallRecord, calls.slice(i, i + CHUNK), { ignoreConflicts: true });
    for (let i = 0; i < witnesses.length; i += CHUNK)
      await insertRows(m, MessageWitnessRecord, witnesses.slice(i, i + CHUNK));
    for (const indexer of this.indexers) if (recorded.length) await indexer.indexMessages(m, after.id, recorded);
    for (const projection of this.projections) await projection.project(m, after.id, events);
    return after;
  }

  private writtenIn(m: EntityManager): Map<string, CampaignState> {
    return transactionLocal(m, this.written, () => new Map<string, CampaignState>());
  }
}
