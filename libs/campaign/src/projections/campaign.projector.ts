import { inTimedSlices } from '@app/common';
import { EventStore, gameStream, StoredEvent } from '@app/event-store';
import { Database, insertRows, sql, transactionLocal } from '@app/database';
import { EntityManager } from 'typeorm';
import { EventOf, GameEvent } from '../domain/events';
import { evolve } from '../domain/evolve';
import { docOf, rowChars, rowsOfState, StateKind, stateRowsOf } from '../domain/state-rows';
import { witnessesOf } from '../domain/witnessing';
import { CampaignState, emptyState, Message } from '../domain/state';
import { MessageRecord, ToolCallRecord } from './message.entity';
import { MessageWitnessRecord } from './witness.entity';
import { toMessageRecord } from './message.mapper';
import { CampaignStateCache, stateChars } from './campaign-state.cache';
import { readCampaignRow, readRewinds } from './campaign-row';

const CHUNK = 200;
/** Messages of a batch's first insert (inTimedSlices sizes the next ones by its pace). */
const MESSAGE_SLICE = 50;
/** State rows per INSERT statement (6 parameters each). */
const ROW_CHUNK = 100;
/** Game events per read while a backfill replays a stream. */
const BACKFILL_PAGE = 5000;

/** One state row an append writes: the entity's document as of `version`, null when it went away. */
interface RowWrite {
  kind: StateKind;
  key: string;
  version: number;
  doc: string | null;
}

/** Logs a backfill's progress (the service passes its logger). */
export type BackfillLog = (message: string) => void;

/** Listeners that index projections in the same transaction (e.g. the search index, §7). */
export interface MessageIndexer {
  indexMessages(m: EntityManager, campaignId: string, messages: Message[]): Promise<void>;
}

/** Another lib's projection of game events, run in the append's transaction (e.g. game accounts, §5). */
export interface GameEventProjection {
  project(m: EntityManager, campaignId: string, events: StoredEvent[]): Promise<void>;
}

/** Inline projections of the game stream: campaign state (as versioned rows), messages, tool calls. */
export class CampaignProjector {
  private readonly indexers: MessageIndexer[] = [];
  private readonly projections: GameEventProjection[] = [];
  /**
   * Key of the states written in the running transaction, by campaign: the next write of a campaign
   * in the same SQLite commit group needs a version no commit has put in the cache yet, and would
   * otherwise read the rows and assemble the state again. `transactionLocal` drops them when a
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

  /**
   * Empties this projector's tables inside `m` (a rebuild replays the game streams into them next).
   * `campaign_timelines` is not a projection of the stream (a later rewind deletes the earlier
   * `CampaignRewound`) and stays: a rebuilt campaign takes its timeline from it.
   */
  async reset(m: EntityManager): Promise<void> {
    for (const table of ['message_witnesses', 'tool_calls', 'messages', 'campaign_state_rows', 'campaigns'])
      await sql(m, `DELETE FROM "${table}"`);
  }

  /**
   * The campaign's state as of its row's version: from the cache when it has that (timeline, version), else its
   * rows.
   */
  async load(m: EntityManager, campaignId: string): Promise<CampaignState> {
    const written = this.writtenIn(m).get(campaignId);
    if (written) return written;
    const row = await readCampaignRow(m, campaignId, this.cache);
    return row ? row.state : emptyState(campaignId);
  }

  /** After the commit of a transaction that loaded or applied `state`: later reads may reuse it. */
  committed(state: CampaignState): void {
    this.cache.put(state, state.timeline ?? 1, stateChars.get(state) ?? estimateChars(state));
  }

  /** Applies appended events; returns the new state. Runs inside the append's transaction. */
  async apply(m: EntityManager, before: CampaignState, events: StoredEvent[]): Promise<CampaignState> {
    // Folded one event at a time: each message's witnesses are judged from the state it was recorded in.
    const witnesses: WitnessRow[] = [];
    const folded = foldRows(before, events, true, (state, e) => {
      if (e.type !== 'MessageRecorded') return;
      const msg = e.data as Message;
      for (const viewerId of witnessesOf(state, msg))
        witnesses.push({ campaignId: state.id, viewerId, index: msg.index });
    });
    const after =
      before.version === 0
        ? await insertCampaignRow(m, folded.after)
        : await updateCampaignRow(m, before, folded.after);
    await writeStateRows(m, after.id, folded.writes, before.version > 0);
    // Kept from here on: should what follows fail, the rollback of this member's savepoint drops it.
    this.writtenIn(m).set(after.id, after);
    const recorded = await insertMessages(m, after.id, events);
    await inTimedSlices(witnesses.length, { first: CHUNK, max: CHUNK }, (lo, hi) =>
      insertRows(m, MessageWitnessRecord, witnesses.slice(lo, hi)),
    );
    await withholdRetracted(m, after.id, events);
    for (const indexer of this.indexers) if (recorded.length) await indexer.indexMessages(m, after.id, recorded);
    for (const projection of this.projections) await projection.project(m, after.id, events);
    return after;
  }

  /**
   * Boot, before the worker: campaigns whose state is still the JSON document of older releases get their
   * state rows, by replaying their game stream through `evolve` (one transaction per campaign), and lose the
   * document. A migration cannot do it: it would have to import domain code that changes after it.
   */
  async backfillStateRows(db: Database, store: EventStore, log: BackfillLog = () => undefined): Promise<number> {
    const text = 'SELECT "id" FROM "campaigns" WHERE "state" <> \'\' ORDER BY "id"';
    const { rows } = await db.read((m) => sql<{ id: string }>(m, text));
    for (const [i, { id }] of rows.entries()) {
      const started = Date.now();
      // Read and folded outside the transaction (a long stream's events would not fit in memory at once);
      // only the rows, about one per non-message event, are kept for the write.
      let state = emptyState(id);
      const writes: RowWrite[] = [];
      for (let after = 0; ;) {
        const page = await store.readStream(gameStream(id), { after, limit: BACKFILL_PAGE });
        if (page.length === 0) break;
        const folded = foldRows(state, page, false);
        writes.push(...folded.writes);
        state = folded.after;
        after = page[page.length - 1].version;
      }
      const done = await db.transaction(async (m) => {
        // Takes the row first: a replica booting at the same time waits here, then finds the work done.
        const claim = 'UPDATE "campaigns" SET "state" = "state" WHERE "id" = ? AND "state" <> \'\'';
        if ((await sql(m, claim, [id])).changes === 0) return false;
        await sql(m, 'DELETE FROM "campaign_state_rows" WHERE "campaign_id" = ?', [id]);
        await writeStateRows(m, id, writes, false);
        const clear = 'UPDATE "campaigns" SET "state" = \'\', "message_count" = ? WHERE "id" = ? AND "version" = ?';
        const res = await sql(m, clear, [state.messageCount, id, state.version]);
        if (res.changes === 0)
          throw new Error(`campaign ${id}: its row is not at its stream's version ${state.version}`);
        return true;
      });
      if (done) {
        const ms = Date.now() - started;
        log(`state rows of campaign ${id} from ${state.version} events (${i + 1}/${rows.length}, ${ms} ms)`);
      }
    }
    return rows.length;
  }

  private writtenIn(m: EntityManager): Map<string, CampaignState> {
    return transactionLocal(m, this.written, () => new Map<string, CampaignState>());
  }
}

/** A message's witness row, as `apply` collects them while folding. */
type WitnessRow = Pick<MessageWitnessRecord, 'campaignId' | 'viewerId' | 'index'>;

/** The first append of a campaign inserts its row; returns `after` with the timeline and rewinds the row holds. */
async function insertCampaignRow(m: EntityManager, after: CampaignState): Promise<CampaignState> {
  // A rebuilt campaign keeps the timeline its rewinds reached (campaign_timelines is not rebuilt).
  await sql(
    m,
    'INSERT INTO "campaigns" ("id", "name", "version", "state", "created_at", "message_count", "parent_id", ' +
      '"parent_version", "timeline") VALUES (?, ?, ?, \'\', ?, ?, ?, ?, ' +
      'COALESCE((SELECT MAX("timeline") FROM "campaign_timelines" WHERE "campaign_id" = ?), 1))',
    [
      after.id,
      after.name,
      after.version,
      after.createdAt,
      after.messageCount,
      after.parent?.id ?? null,
      after.parent?.version ?? null,
      after.id,
    ],
  );
  const text = 'SELECT "timeline" FROM "campaigns" WHERE "id" = ?';
  const timeline = Number((await sql<{ timeline: number | string }>(m, text, [after.id])).rows[0].timeline);
  return withHead(after, { timeline, rewinds: await readRewinds(m, after.id) });
}

/** A later append moves the campaign's row from `before`'s version to `after`'s; returns `after`. */
async function updateCampaignRow(
  m: EntityManager,
  before: CampaignState,
  after: CampaignState,
): Promise<CampaignState> {
  // `timeline`: a write decided on a state of an earlier timeline (a rewind committed since) must not land.
  const res = await sql(
    m,
    'UPDATE "campaigns" SET "version" = ?, "name" = ?, "message_count" = ?, "parent_id" = ?, ' +
      '"parent_version" = ? WHERE "id" = ? AND "version" = ? AND "timeline" = ?',
    [
      after.version,
      after.name,
      after.messageCount,
      after.parent?.id ?? null,
      after.parent?.version ?? null,
      after.id,
      before.version,
      before.timeline ?? 1,
    ],
  );
  if (res.changes === 0) throw new Error(`campaign ${after.id} moved during append`);
  return after;
}

/** Inserts the rows of the recorded messages and of their tool calls; returns the messages. */
async function insertMessages(m: EntityManager, campaignId: string, events: StoredEvent[]): Promise<Message[]> {
  const messages = events.filter((e) => e.type === 'MessageRecorded');
  const recorded = messages.map((e) => e.data as Message);
  // §13: a large batch in timed slices, the event loop given back between them (one message: one go).
  await inTimedSlices(messages.length, { first: MESSAGE_SLICE, max: CHUNK }, (lo, hi) =>
    insertRows(
      m,
      MessageRecord,
      messages.slice(lo, hi).map((e) => toMessageRecord(campaignId, e.data as Message, e.version)),
    ),
  );
  const calls = recorded.flatMap((msg) =>
    msg.toolCalls.map((c) => ({ campaignId, callId: c.id, name: c.name, messageIndex: msg.index })),
  );
  for (let i = 0; i < calls.length; i += CHUNK)
    await insertRows(m, ToolCallRecord, calls.slice(i, i + CHUNK), { ignoreConflicts: true });
  return recorded;
}

/** §10: a retracted message is withheld from every read from this commit on; it keeps its index (and its row). */
async function withholdRetracted(m: EntityManager, campaignId: string, events: StoredEvent[]): Promise<void> {
  for (const e of events) {
    if (e.type !== 'MessagesRetracted') continue;
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
}

/**
 * Folds `events` into `before` and names the state rows each one wrote. With `measure`, the result's size
 * (`stateChars`) is `before`'s adjusted by the rows that changed: nothing serializes the whole aggregate.
 */
function foldRows(
  before: CampaignState,
  events: StoredEvent[],
  measure: boolean,
  beforeEach: (state: CampaignState, e: StoredEvent) => void = () => undefined,
): { after: CampaignState; writes: RowWrite[] } {
  let after = before;
  let chars = measure ? (stateChars.get(before) ?? estimateChars(before)) : 0;
  const writes: RowWrite[] = [];
  for (const e of events) {
    beforeEach(after, e);
    const event = { type: e.type, data: e.data } as GameEvent;
    const next = { ...evolve(after, event, e.recordedAt, e.version), version: e.version };
    for (const r of stateRowsOf(event, next)) {
      if (measure) chars += rowChars(r) - rowChars({ ...r, doc: docOf(after, r) });
      writes.push({ kind: r.kind, key: r.key, version: e.version, doc: r.doc });
    }
    after = next;
  }
  if (measure) stateChars.set(after, chars);
  return { after, writes };
}

/**
 * Writes rows in order: the entity's current row (if `existing` rows may be there) is closed at the first new
 * version, each new row is closed by the next one of its entity. One UPDATE per entity an append touched (on
 * `ix_state_rows_current`) and the INSERTs: the cost follows what changed, never the size of the state.
 */
async function writeStateRows(m: EntityManager, campaignId: string, writes: RowWrite[], existing: boolean) {
  const byEntity = new Map<string, RowWrite[]>();
  for (const w of writes) {
    const key = `${w.kind}\u0000${w.key}`;
    const list = byEntity.get(key) ?? [];
    // Two writes of one entity in one event: the later is what the event left.
    if (list.length && list[list.length - 1].version === w.version) list.pop();
    list.push(w);
    byEntity.set(key, list);
  }
  const inserts: unknown[][] = [];
  for (const list of byEntity.values()) {
    if (existing)
      await sql(
        m,
        'UPDATE "campaign_state_rows" SET "valid_to" = ? WHERE "campaign_id" = ? AND "kind" = ? AND "key" = ? ' +
          'AND "valid_to" IS NULL',
        [list[0].version, campaignId, list[0].kind, list[0].key],
      );
    list.forEach((w, i) => {
      if (w.doc !== null) inserts.push([campaignId, w.kind, w.key, w.version, list[i + 1]?.version ?? null, w.doc]);
    });
  }
  for (let i = 0; i < inserts.length; i += ROW_CHUNK) {
    const chunk = inserts.slice(i, i + ROW_CHUNK);
    await sql(
      m,
      'INSERT INTO "campaign_state_rows" ("campaign_id", "kind", "key", "valid_from", "valid_to", "doc") VALUES ' +
        chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', '),
      chunk.flat(),
    );
  }
}

/** A copy of `state` with columns of the campaign row (not state rows) set, that keeps its measured size. */
function withHead(state: CampaignState, head: Pick<CampaignState, 'timeline' | 'rewinds'>): CampaignState {
  const next = { ...state, ...head };
  const chars = stateChars.get(state);
  if (chars !== undefined) stateChars.set(next, chars);
  return next;
}

/** Size of a state nobody measured (an empty one, a test's): the sum of its rows. */
const estimateChars = (state: CampaignState) => rowsOfState(state).reduce((n, r) => n + rowChars(r), 0);
