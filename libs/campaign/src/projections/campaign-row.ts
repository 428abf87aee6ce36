import { sql } from '@app/database';
import { EntityManager } from 'typeorm';
import { assembleState, rowChars, STATE_KINDS, StateKind, StoredStateRow } from '../domain/state-rows';
import { CampaignState, Rewind } from '../domain/state';
import { CampaignStateCache, stateChars } from './campaign-state.cache';

export interface CampaignRow {
  state: CampaignState;
  timeline: number;
  /** True when the rows were read and assembled here (the caller may cache the state once it knows it committed). */
  assembled: boolean;
}

interface HeadRow {
  version: number | string;
  timeline: number | string;
  message_count: number | string;
}

interface RowOfState {
  kind: string;
  key: string;
  valid_from: number | string;
  doc: string;
  born: number | string;
}

/** The first version of the row's entity (one seek on the primary key): maps list entities in that order. */
const BORN =
  '(SELECT b."valid_from" FROM "campaign_state_rows" b WHERE b."campaign_id" = c."campaign_id" ' +
  'AND b."kind" = c."kind" AND b."key" = c."key" ORDER BY b."valid_from" LIMIT 1)';

/**
 * The current rows and the campaign's counters in ONE statement, so that on PostgreSQL (where another
 * replica may commit in between two statements) they describe one version. The counters come as a
 * row of kind '' (no real kind is empty).
 */
const CURRENT =
  `SELECT c."kind", c."key", c."valid_from", c."doc", ${BORN} AS "born" FROM "campaign_state_rows" c ` +
  'WHERE c."campaign_id" = ? AND c."valid_to" IS NULL ' +
  'UNION ALL SELECT \'\', \'\', "version", CAST("message_count" AS TEXT), "timeline" FROM "campaigns" WHERE "id" = ?';

/**
 * The campaign row: its version, timeline and message count first (small columns), its state rows only
 * when `cache` lacks that (timeline, version). Nothing is put in the cache here: only the caller knows
 * whether the row is committed.
 */
export async function readCampaignRow(
  m: EntityManager,
  campaignId: string,
  cache: CampaignStateCache,
): Promise<CampaignRow | null> {
  const text = 'SELECT "version", "timeline", "message_count" FROM "campaigns" WHERE "id" = ?';
  const head = (await sql<HeadRow>(m, text, [campaignId])).rows[0];
  if (!head) return null;
  const cached = cache.get(campaignId, Number(head.timeline), Number(head.version));
  if (cached) return { state: cached, timeline: Number(head.timeline), assembled: false };
  const { rows } = await sql<RowOfState>(m, CURRENT, [campaignId, campaignId]);
  const counters = rows.find((r) => r.kind === '');
  if (!counters) return null; // deleted in between
  const stored = rows.filter((r) => r.kind !== '').map(toStored);
  const timeline = Number(counters.born);
  const state: CampaignState = {
    ...assembleState(campaignId, stored, { version: Number(counters.valid_from), messageCount: Number(counters.doc) }),
    timeline,
    rewinds: await readRewinds(m, campaignId),
  };
  stateChars.set(state, charsOf(stored));
  return { state, timeline, assembled: true };
}

/** The campaign's rewinds, oldest first (If-Match judges a plain version against them, DESIGN §10). */
export async function readRewinds(m: EntityManager, campaignId: string): Promise<Rewind[]> {
  const text =
    'SELECT "timeline", "from_version", "to_version" FROM "campaign_timelines" WHERE "campaign_id" = ? ' +
    'ORDER BY "timeline"';
  const { rows } = await sql<Record<'timeline' | 'from_version' | 'to_version', number | string>>(m, text, [
    campaignId,
  ]);
  return rows.map((r) => ({
    timeline: Number(r.timeline),
    fromVersion: Number(r.from_version),
    toVersion: Number(r.to_version),
  }));
}

/** Churning kinds (few live rows, many versions each): one seek per live entity is cheapest. */
const SEEK_KINDS: ReadonlySet<StateKind> = new Set<StateKind>(['head', 'location', 'npc', 'player', 'account', 'fact']);

/**
 * The rows valid at `version` of the given kinds (docs/state.md): churning kinds by one backward seek per
 * live entity on the primary key, the others (about one version per entity) by a range scan of the kind.
 * Nothing is replayed: the cost follows the live entities of the kinds asked for, not the history.
 */
export async function readStateRowsAt(
  m: EntityManager,
  campaignId: string,
  version: number,
  kinds: readonly StateKind[],
): Promise<StoredStateRow[]> {
  const seek = kinds.filter((k) => SEEK_KINDS.has(k));
  const scan = kinds.filter((k) => !SEEK_KINDS.has(k));
  const out: StoredStateRow[] = [];
  if (seek.length) {
    // Every live entity has exactly one current row (ix_state_rows_current); its newest row <= V is its doc at V
    // (none: created after V).
    const text =
      'SELECT c."kind", c."key", (SELECT v."doc" FROM "campaign_state_rows" v ' +
      'WHERE v."campaign_id" = c."campaign_id" AND v."kind" = c."kind" AND v."key" = c."key" AND v."valid_from" <= ? ' +
      'ORDER BY v."valid_from" DESC LIMIT 1) ' +
      `AS "doc", ${BORN} AS "born" FROM "campaign_state_rows" c WHERE c."campaign_id" = ? ` +
      `AND c."kind" IN (${seek.map(() => '?').join(', ')}) AND c."valid_to" IS NULL`;
    const { rows } = await sql<Omit<RowOfState, 'valid_from'>>(m, text, [version, campaignId, ...seek]);
    for (const r of rows) if (r.doc !== null) out.push(toStored({ ...r, valid_from: r.born }));
  }
  for (const kind of scan) {
    const text =
      `SELECT c."kind", c."key", c."valid_from", c."doc", ${BORN} AS "born" FROM "campaign_state_rows" c ` +
      'WHERE c."campaign_id" = ? AND c."kind" = ? AND c."valid_from" <= ? ' +
      'AND (c."valid_to" IS NULL OR c."valid_to" > ?)';
    const { rows } = await sql<RowOfState>(m, text, [campaignId, kind, version, version]);
    out.push(...rows.map(toStored));
  }
  return out;
}

/**
 * The state as of `version` in the campaign's current timeline, with the `kinds` of rows asked for (the others come
 * out empty), read on `m` (a read or the fork/rewind transaction): the rows valid at V and one seek for the message
 * count, never a replay of the stream. `chars` is its cost in the state cache. Timeline and rewinds are the caller's.
 */
export async function readStateAt(
  m: EntityManager,
  campaignId: string,
  version: number,
  kinds: readonly StateKind[] = STATE_KINDS,
): Promise<{ state: CampaignState; chars: number }> {
  const rows = await readStateRowsAt(m, campaignId, version, kinds);
  const messageCount = await messageCountAt(m, campaignId, version);
  return { state: assembleState(campaignId, rows, { version, messageCount }), chars: charsOf(rows) };
}

/**
 * Messages recorded at or before `version` (index order is version order): one backward seek of ix_messages_version,
 * then the highest index among that version's messages (a batch shares its version, and ties of an index need not come
 * in index order on PostgreSQL). Never `MAX(idx) … WHERE version <= ?`: that folds every message before V.
 */
export async function messageCountAt(m: EntityManager, campaignId: string, version: number): Promise<number> {
  const text =
    'SELECT "idx" FROM "messages" WHERE "campaign_id" = ? AND "version" <= ? ' +
    'ORDER BY "version" DESC, "idx" DESC LIMIT 1';
  const row = (await sql<{ idx: number | string }>(m, text, [campaignId, version])).rows[0];
  return row ? Number(row.idx) + 1 : 0;
}

const toStored = (r: RowOfState): StoredStateRow => ({
  kind: r.kind as StateKind,
  key: r.key,
  doc: r.doc,
  validFrom: Number(r.valid_from),
  born: Number(r.born),
});

export const charsOf = (rows: StoredStateRow[]) => rows.reduce((n, r) => n + rowChars(r), 0);
