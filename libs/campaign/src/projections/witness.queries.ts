import { sql } from '@app/database';
import { EntityManager } from 'typeorm';
import { PUBLIC_WITNESS } from '../domain/witnessing';
import { chunks, marks } from './in-list';
import { seenBy } from './seen-by';
import { MessageHorizon, visibleAt } from './visible-at';

// The reads of `message_witnesses`: who saw which messages (DESIGN §8). Re-exported by message.queries.ts, whose
// header says how these statements are written.

/**
 * Every index `viewer` (a witness key) witnessed and that is visible at `at`, ascending: a bound key's `seq` is a
 * position in this list (DESIGN §8 "A bound key learns nothing about what it did not witness").
 */
export async function witnessedOrder(
  m: EntityManager,
  campaignId: string,
  viewer: string,
  at: MessageHorizon,
): Promise<number[]> {
  // The witness primary key alone (a covering range, no row of messages read per index), less the messages retracted
  // by then (few, ix_messages_retracted): a join with messages cost 4x as much at 50k witnessed messages.
  const witnessed = await sql<{ idx: number | string }>(
    m,
    'SELECT idx FROM message_witnesses WHERE campaign_id = ? AND viewer_id = ? AND idx < ? ORDER BY idx',
    [campaignId, viewer, at.messageCount],
  );
  const retracted = await sql<{ idx: number | string }>(
    m,
    'SELECT idx FROM messages WHERE campaign_id = ? AND retracted_version IS NOT NULL AND retracted_version <= ?',
    [campaignId, at.version],
  );
  const gone = new Set(retracted.rows.map((r) => Number(r.idx)));
  return witnessed.rows.map((r) => Number(r.idx)).filter((idx) => !gone.has(idx));
}

/** The subset of `indexes` that `viewer` (a witness key, or PUBLIC_WITNESS) saw. */
export async function witnessedIndexes(
  m: EntityManager,
  campaignId: string,
  viewer: string,
  indexes: number[],
  at?: MessageHorizon,
): Promise<Set<number>> {
  const out = new Set<number>();
  const seen = seenBy(viewer);
  const visible = at ? visibleAt(at) : { where: '1 = 1', params: [] };
  for (const chunk of chunks([...new Set(indexes)])) {
    const text =
      `SELECT m.idx AS idx FROM messages m${seen.join}` +
      ` WHERE m.campaign_id = ? AND m.idx IN (${marks(chunk.length)}) AND ${visible.where}${seen.where}`;
    const values = [...seen.params, campaignId, ...chunk, ...visible.params];
    const { rows } = await sql<{ idx: number | string }>(m, text, values);
    for (const r of rows) out.add(Number(r.idx));
  }
  return out;
}

/**
 * How many of `indexes` each witness key saw: every character's count from its `message_witnesses` rows, and
 * PUBLIC_WITNESS's, the public messages among them (present, possibly 0, whenever `indexes` is not empty).
 */
export async function witnessCounts(
  m: EntityManager,
  campaignId: string,
  indexes: number[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const add = (key: string, n: number | string) => counts.set(key, (counts.get(key) ?? 0) + Number(n));
  for (const chunk of chunks([...new Set(indexes)])) {
    // The key is (campaign, viewer, idx): one seek per viewer and index, the viewers found by a skip scan. Grouping
    // the campaign's witness rows by viewer read all of them for every memory (quadratic over a replay or an import).
    const perViewer =
      'WITH RECURSIVE v(id) AS (SELECT MIN(viewer_id) FROM message_witnesses WHERE campaign_id = ? UNION ALL SELECT ' +
      '(SELECT MIN(viewer_id) FROM message_witnesses WHERE campaign_id = ? AND viewer_id > v.id) FROM v WHERE v.id ' +
      'IS NOT NULL) SELECT v.id AS viewer_id, (SELECT COUNT(*) FROM message_witnesses w WHERE w.campaign_id = ? AND ' +
      `w.viewer_id = v.id AND w.idx IN (${marks(chunk.length)})) AS n FROM v WHERE v.id IS NOT NULL`;
    const params = [campaignId, campaignId, campaignId, ...chunk];
    const viewers = await sql<{ viewer_id: string; n: number | string }>(m, perViewer, params);
    for (const r of viewers.rows) if (Number(r.n) > 0) add(r.viewer_id, r.n);
    const seen = seenBy(PUBLIC_WITNESS);
    const publicOnes =
      'SELECT COUNT(*) AS n FROM messages m' +
      ` WHERE m.campaign_id = ? AND m.idx IN (${marks(chunk.length)})${seen.where}`;
    add(PUBLIC_WITNESS, (await sql<{ n: number | string }>(m, publicOnes, [campaignId, ...chunk])).rows[0]?.n ?? 0);
  }
  return counts;
}
