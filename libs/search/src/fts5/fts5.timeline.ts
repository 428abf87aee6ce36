import { inTimedSlices } from '@app/common';
import { atGroupEnd, sql } from '@app/database';
import { EntityManager } from 'typeorm';
import type { IndexHorizon, SearchTimeline } from '../search-index.port';
import { CORRECTION_ROWS } from '../wording-rows';
import { LOW_32 } from './fts5.search-index';

/**
 * Rows of a fork's first copy statement (§13): FTS5 re-tokenizes each, and 5,000 messages in one statement held the
 * event loop for a third of a second; the next statements follow the first one's pace (inTimedSlices), and between
 * them the loop is given back (the transaction stays open, behind the write mutex). 200 rows a slice held it 25–65 ms.
 */
export const FORK_SLICE_ROWS = 50;
/**
 * The most rows a copy statement takes, whatever the pace (a sparse range of ids says little of the next one). The
 * fewest is FORK_SLICE_ROWS: each statement first flushes FTS5's pending terms (a fixed cost of a few ms at 100k rows),
 * so a pace-sized slice shrank to one row and a 100k-event fork took 246 s instead of 4 (the timelines bench).
 */
const FORK_SLICE_MAX = 200;

/** Where a campaign's rows sit: `(num << 32) + local id`, local ids from `lo` to `hi`. */
const RANGE = 'rowid BETWEEN (? << 32) + ? AND (? << 32) + ?';
const range = (num: number, lo: number, hi: number) => [num, lo, num, hi];

/**
 * The FTS5 index in fork, rewind and delete (DESIGN §10). Runs where the index's own writes run (`atGroupEnd`):
 * rows parked by earlier writes of the same commit group are there when it copies or deletes, later ones after.
 * FTS5 re-tokenizes on `INSERT … SELECT`, which dominates a fork's cost (docs/timelines.md).
 */
export class Fts5Timeline implements SearchTimeline {
  readonly name = 'search' as const;

  async copy(m: EntityManager, from: string, to: string, at: IndexHorizon): Promise<void> {
    await atGroupEnd(m, async () => {
      const parent = await numOf(m, from);
      if (parent === null) return;
      const child = await numOf(m, to, true);
      // Message rows are dense (local id = index): sliced by id. Memory rows are sparse over the versions: one go.
      const copy = async (table: string, columns: string, lo: number, hi: number, first = hi - lo + 1) =>
        inTimedSlices(
          hi - lo + 1,
          { first, min: Math.min(first, FORK_SLICE_ROWS), max: Math.max(first, FORK_SLICE_MAX) },
          (a, b) =>
            sql(
              m,
              `INSERT INTO ${table} (rowid, ${columns}) SELECT (? << 32) + (rowid & ${LOW_32}), ${columns} ` +
                `FROM ${table} WHERE ${RANGE}`,
              [child, ...range(parent, lo + a, lo + b - 1)],
            ),
        );
      const last = at.messageCount - 1;
      await copy('search_messages', 'content, role, location_id, at, round', 0, last, FORK_SLICE_ROWS);
      await copy('search_reasoning', 'reasoning, role, location_id, at, round', 0, last, FORK_SLICE_ROWS);
      const memories = 'summary, memory_id, location_id, at, round';
      await copy('search_memories', memories, 0, Math.min(at.memoryVersion, CORRECTION_ROWS - 1));
      await copy('search_memories', memories, CORRECTION_ROWS, CORRECTION_ROWS + at.version);
    });
  }

  async rewind(m: EntityManager, id: string, to: IndexHorizon): Promise<void> {
    await atGroupEnd(m, async () => {
      const num = await numOf(m, id);
      if (num === null) return;
      const drop = (table: string, lo: number, hi: number) =>
        sql(m, `DELETE FROM ${table} WHERE ${RANGE}`, range(num, lo, hi));
      await drop('search_messages', to.messageCount, LOW_32);
      await drop('search_reasoning', to.messageCount, LOW_32);
      await drop('search_memories', to.memoryVersion + 1, CORRECTION_ROWS - 1);
      await drop('search_memories', CORRECTION_ROWS + to.version + 1, LOW_32);
    });
  }

  async remove(m: EntityManager, id: string): Promise<void> {
    await atGroupEnd(m, async () => {
      const num = await numOf(m, id);
      if (num === null) return;
      for (const table of ['search_messages', 'search_reasoning', 'search_memories'])
        await sql(m, `DELETE FROM ${table} WHERE ${RANGE}`, range(num, 0, LOW_32));
      await sql(m, 'DELETE FROM search_campaigns WHERE campaign_id = ?', [id]);
    });
  }
}

/** The campaign's number in `search_campaigns` (created for a fork's first rows when `create`). */
async function numOf(m: EntityManager, campaignId: string, create = false): Promise<number | null> {
  const found = (await sql<{ num: number }>(m, 'SELECT num FROM search_campaigns WHERE campaign_id = ?', [campaignId]))
    .rows[0];
  if (found) return Number(found.num);
  if (!create) return null;
  const text = 'INSERT INTO search_campaigns (campaign_id) VALUES (?) RETURNING num';
  return Number((await sql<{ num: number }>(m, text, [campaignId])).rows[0].num);
}
