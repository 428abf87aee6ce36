import { sql } from '@app/database';
import { EntityManager } from 'typeorm';
import { Message } from '../domain/state';
import { MessageRecord } from './message.entity';
import { fromMessageRecord } from './message.mapper';
import { chunks, marks } from './in-list';
import { seenBy } from './seen-by';
import { MessageHorizon, visibleAt } from './visible-at';

export { visibleAt } from './visible-at';
export type { MessageHorizon } from './visible-at';
export { witnessCounts, witnessedIndexes, witnessedOrder } from './witness.queries';

/**
 * Every read of `messages`, `message_witnesses` and `tool_calls` (those of the witness table in witness.queries.ts,
 * the as-of filter in visible-at.ts, both re-exported here), as plain parameterised SQL on the caller's
 * manager: CampaignReader runs them in its own reads, the memory and search projections inside their transactions.
 * Plain SQL, not the query builder: query building showed in the worker's CPU profiles (scope selection runs per
 * trigger), and the Recent window read took half the time without it (`npm run bench -- --only search`).
 * The witness filter is `seenBy` (one definition); each statement is an index seek or a bounded index range, except
 * the glossary's text search (`contentsContaining`), which reads the viewer's messages of one campaign.
 */

export type StoredMessage = Message & {
  version: number;
  /** §10, only with `includeRetracted`: the retraction a message had at the horizon, else null. */
  retracted?: { version: number; reason: string | null } | null;
};

export interface RecentWindow {
  /** Oldest first. */
  messages: StoredMessage[];
  /** The campaign's first system message when it precedes the window (pinned), else null. */
  pinned: StoredMessage | null;
  /** Call id → tool name for every tool result in the window. */
  toolNames: Map<string, string>;
}

/** The messages table's columns under MessageRecord's property names (mapped through fromMessageRecord). */
const MESSAGE_COLUMNS = [
  'm.idx AS "index"',
  'm.role AS "role"',
  'm.speaker AS "speaker"',
  'm.content AS "content"',
  'm.location_id AS "locationId"',
  'm.npc_ids AS "npcIds"',
  'm.at AS "at"',
  'm.round AS "round"',
  'm.visibility AS "visibility"',
  'm.audience AS "audience"',
  'm.tool_calls AS "toolCalls"',
  'm.tool_call_id AS "toolCallId"',
  'm.reasoning AS "reasoning"',
  'm.version AS "version"',
  'm.story_time AS "storyTime"',
  'm.at_filled AS "atFilled"',
].join(', ');

/** Conditions of a statement on `messages m` and their values, in order. */
class Where {
  readonly text: string[] = [];
  readonly params: unknown[] = [];
  and(condition: string, ...values: unknown[]): this {
    this.text.push(condition);
    this.params.push(...values);
    return this;
  }
  /** `visibleAt(at)` (no bound when absent: the worker's own reads, which bound by version themselves). */
  visible(at: MessageHorizon | undefined, includeRetracted = false): this {
    if (!at) return this;
    const v = visibleAt(at, 'm', includeRetracted);
    return this.and(v.where, ...v.params);
  }
}

/** The retraction columns, read only where a message is shown with its retraction (`includeRetracted`). */
const RETRACTION_COLUMNS = 'm.retracted_version AS "retractedVersion", m.retract_reason AS "retractReason"';

/** `SELECT <columns> FROM messages m … WHERE … <tail>`, filtered by `seenBy(viewer)`. */
async function selectMessages(
  m: EntityManager,
  where: Where,
  viewer: string | undefined,
  tail: string,
  tailParams: unknown[] = [],
  retractionAt?: number,
): Promise<StoredMessage[]> {
  const seen = seenBy(viewer);
  const conditions = where.text.join(' AND ');
  const columns = retractionAt === undefined ? MESSAGE_COLUMNS : `${MESSAGE_COLUMNS}, ${RETRACTION_COLUMNS}`;
  const text = `SELECT ${columns} FROM messages m${seen.join} WHERE ${conditions}${seen.where} ${tail}`;
  const { rows } = await sql<MessageRecord>(m, text, [...seen.params, ...where.params, ...tailParams]);
  if (retractionAt === undefined) return rows.map(fromMessageRecord);
  return rows.map((r) => {
    const v = r.retractedVersion === null ? null : Number(r.retractedVersion);
    // Retracted after the horizon: as of then it was not.
    const retracted = v !== null && v <= retractionAt ? { version: v, reason: r.retractReason ?? null } : null;
    return { ...fromMessageRecord(r), retracted };
  });
}

/** Messages after an exclusive index, oldest first; with `seenBy` only those that viewer saw. */
export function listMessages(
  m: EntityManager,
  campaignId: string,
  o: {
    after?: number;
    limit: number;
    locationId?: string;
    seenBy?: string;
    at?: MessageHorizon;
    includeRetracted?: boolean;
  },
): Promise<StoredMessage[]> {
  const where = new Where()
    .and('m.campaign_id = ?', campaignId)
    .and('m.idx > ?', o.after ?? -1)
    .visible(o.at, o.includeRetracted);
  if (o.locationId !== undefined) where.and('m.location_id = ?', o.locationId);
  const retractionAt = o.includeRetracted && o.at ? o.at.version : undefined;
  return selectMessages(m, where, o.seenBy, 'ORDER BY m.idx ASC LIMIT ?', [o.limit], retractionAt);
}

/** The last `limit` messages (optionally from a round on, before an index), oldest first. */
export async function lastMessages(
  m: EntityManager,
  campaignId: string,
  o: { limit: number; fromRound?: number; beforeIndex?: number },
): Promise<StoredMessage[]> {
  const where = new Where().and('m.campaign_id = ?', campaignId);
  if (o.fromRound !== undefined) where.and('m.round >= ?', o.fromRound);
  if (o.beforeIndex !== undefined) where.and('m.idx < ?', o.beforeIndex);
  return (await selectMessages(m, where, undefined, 'ORDER BY m.idx DESC LIMIT ?', [o.limit])).reverse();
}

/** Messages by index (primary-key lookups), oldest first. */
export function messagesByIndex(
  m: EntityManager,
  campaignId: string,
  indexes: number[],
  at?: MessageHorizon,
): Promise<StoredMessage[]> {
  if (indexes.length === 0) return Promise.resolve([]);
  const where = new Where()
    .and('m.campaign_id = ?', campaignId)
    .and(`m.idx IN (${marks(indexes.length)})`, ...indexes)
    .visible(at);
  return selectMessages(m, where, undefined, 'ORDER BY m.idx ASC');
}

/**
 * Messages whose `at` falls in [from, to) as ISO strings compare (§8 recall of a named day), oldest first, at most
 * `limit`. A bounded scan of one campaign's rows: `at` is a client's story time and carries no index.
 */
export function messagesBetween(
  m: EntityManager,
  campaignId: string,
  o: { from: string; to: string; limit: number },
  at?: MessageHorizon,
): Promise<StoredMessage[]> {
  const where = new Where()
    .and('m.campaign_id = ?', campaignId)
    .and('m.at >= ?', o.from)
    .and('m.at < ?', o.to)
    .visible(at);
  return selectMessages(m, where, undefined, 'ORDER BY m.idx ASC LIMIT ?', [o.limit]);
}

/**
 * Scope selection for the memory worker: `locationId`, index > cursor, recorded before `beforeVersion`;
 * §8: only rounds up to `maxRound`, only messages `seenBy` a viewer key.
 */
export function messagesForScope(
  m: EntityManager,
  campaignId: string,
  o: {
    locationId?: string;
    afterIndex: number;
    beforeVersion: number;
    roles?: string[];
    maxRound?: number;
    seenBy?: string;
  },
): Promise<StoredMessage[]> {
  const where = new Where()
    .and('m.campaign_id = ?', campaignId)
    .and('m.idx > ?', o.afterIndex)
    .and('m.version < ?', o.beforeVersion)
    // §10: retracted as of the trigger, not now, or what the worker writes would depend on how far behind it was.
    .and('(m.retracted_version IS NULL OR m.retracted_version > ?)', o.beforeVersion);
  if (o.maxRound !== undefined) where.and('m.round <= ?', o.maxRound);
  if (o.locationId !== undefined) where.and('m.location_id = ?', o.locationId);
  if (o.roles) where.and(`m.role IN (${marks(o.roles.length)})`, ...o.roles);
  return selectMessages(m, where, o.seenBy, 'ORDER BY m.idx ASC');
}

/**
 * §10: the indexes among `indexes` whose message is retracted — by game version `atVersion` when given, else now
 * (primary-key lookups). Inside the caller's transaction: memory's projector checks a late outcome's inputs with it.
 */
export async function retractedAmong(
  m: EntityManager,
  campaignId: string,
  indexes: number[],
  atVersion?: number,
): Promise<Set<number>> {
  const found = new Set<number>();
  const until = atVersion === undefined ? '' : ' AND retracted_version <= ?';
  for (const chunk of chunks([...new Set(indexes)])) {
    const text =
      `SELECT idx FROM messages WHERE campaign_id = ? AND idx IN (${marks(chunk.length)}) AND ` +
      `retracted_version IS NOT NULL${until}`;
    const params = atVersion === undefined ? [campaignId, ...chunk] : [campaignId, ...chunk, atVersion];
    for (const r of (await sql<{ idx: number | string }>(m, text, params)).rows) found.add(Number(r.idx));
  }
  return found;
}

/** Round of each message index (primary-key lookups); negative indexes are skipped. */
export async function messageRounds(
  m: EntityManager,
  campaignId: string,
  indexes: number[],
): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const chunk of chunks([...new Set(indexes.filter((i) => i >= 0))])) {
    // ORDER BY idx: SQLite seeks the primary key, not ix_messages_round (every message of the campaign, per memory).
    const inChunk = `idx IN (${marks(chunk.length)})`;
    const text = `SELECT idx, round FROM messages WHERE campaign_id = ? AND ${inChunk} ORDER BY idx`;
    const { rows } = await sql<{ idx: number | string; round: number | string }>(m, text, [campaignId, ...chunk]);
    for (const r of rows) out.set(Number(r.idx), Number(r.round));
  }
  return out;
}

/** Call id → tool name of the given calls (primary-key lookups). */
export async function toolNames(m: EntityManager, campaignId: string, callIds: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const chunk of chunks([...new Set(callIds)])) {
    const text = `SELECT call_id, name FROM tool_calls WHERE campaign_id = ? AND call_id IN (${marks(chunk.length)})`;
    const { rows } = await sql<{ call_id: string; name: string }>(m, text, [campaignId, ...chunk]);
    for (const r of rows) out.set(r.call_id, r.name);
  }
  return out;
}

/**
 * The Recent Messages window: the last `limit` messages, or (with `fromRound`) the messages from that round on,
 * capped at `limit`, only those `seenBy` sees; with the first system message pinned when it lies before the window.
 */
export async function recentWindow(
  m: EntityManager,
  campaignId: string,
  o: { limit: number; fromRound?: number; seenBy?: string; at?: MessageHorizon },
): Promise<RecentWindow> {
  const start = o.fromRound === undefined ? 0 : await firstIndexOfRound(m, campaignId, o.fromRound);
  const where = new Where().and('m.campaign_id = ?', campaignId).and('m.idx >= ?', start).visible(o.at);
  const newest =
    start === null ? [] : await selectMessages(m, where, o.seenBy, 'ORDER BY m.idx DESC LIMIT ?', [o.limit]);
  const messages = newest.reverse();
  // An empty window (no message yet in the hot rounds) still pins the system message.
  const windowStart = messages.length ? messages[0].index : Number.MAX_SAFE_INTEGER;
  const pinned = windowStart > 0 ? await firstSystemBefore(m, campaignId, windowStart, o.seenBy, o.at) : null;
  const callIds = messages.map((x) => x.toolCallId).filter((x): x is string => !!x);
  return { messages, pinned, toolNames: await toolNames(m, campaignId, callIds) };
}

/** Rounds never go back, so the messages from `round` on are those from its first index (ix_messages_round). */
async function firstIndexOfRound(m: EntityManager, campaignId: string, round: number): Promise<number | null> {
  const text =
    'SELECT m.idx AS idx FROM messages m WHERE m.campaign_id = ? AND m.round >= ?' +
    ' ORDER BY m.round ASC, m.idx ASC LIMIT 1';
  const row = (await sql<{ idx: number | string }>(m, text, [campaignId, round])).rows[0];
  return row ? Number(row.idx) : null;
}

/**
 * The campaign's first system message `viewer` saw, if it lies before `index`: the partial index ix_messages_system,
 * which the planners use only when the query names the role as a literal.
 */
async function firstSystemBefore(
  m: EntityManager,
  campaignId: string,
  index: number,
  viewer: string | undefined,
  at: MessageHorizon | undefined,
): Promise<StoredMessage | null> {
  const where = new Where().and('m.campaign_id = ?', campaignId).and("m.role = 'system'").visible(at);
  const [first] = await selectMessages(m, where, viewer, 'ORDER BY m.idx ASC LIMIT 1');
  return first && first.index < index ? first : null;
}

/**
 * The contents of the messages `viewer` saw whose lower-cased text contains one of `needles` (lower-case), oldest
 * first: a LIKE pre-filter in the database for a whole-word test the caller makes.
 */
export async function contentsContaining(
  m: EntityManager,
  campaignId: string,
  needles: string[],
  viewer: string,
  at?: MessageHorizon,
): Promise<string[]> {
  if (needles.length === 0) return [];
  const seen = seenBy(viewer);
  const visible = at ? visibleAt(at) : { where: '1 = 1', params: [] };
  const likes = needles.map(() => "LOWER(m.content) LIKE ? ESCAPE '\\'").join(' OR ');
  const text =
    `SELECT m.content AS content FROM messages m${seen.join}` +
    ` WHERE m.campaign_id = ?${seen.where} AND ${visible.where} AND (${likes}) ORDER BY m.idx`;
  const values = [...seen.params, campaignId, ...visible.params, ...needles.map((n) => `%${escapeLike(n)}%`)];
  return (await sql<{ content: string }>(m, text, values)).rows.map((r) => r.content);
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
