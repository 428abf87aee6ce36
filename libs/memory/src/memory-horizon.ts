import { EntityManager, SelectQueryBuilder } from 'typeorm';
import { MemoryHistoryRecord, MemoryRecord } from './memory.entity';

/**
 * How far a memory read sees (DESIGN §10): the memory stream through `memoryVersion` (unbounded for a current read).
 * The memory stream is ordered by trigger version, so this is the same as "outcomes of game events ≤ V".
 */
export interface MemoryHorizon {
  memoryVersion: number;
  /** The game version: a row changed after it is served as its history says it was then. */
  version: number;
}

/**
 * Rows served at `at`: active ones unchanged since its version, and every row changed after it (its status then is
 * in memory_history, asOfRows decides). A current read passes the current horizon: nothing changed after it but a
 * write racing the read, which history answers the same way.
 */
export function servedAt(qb: SelectQueryBuilder<MemoryRecord>, at: MemoryHorizon | undefined): void {
  if (!at) {
    qb.andWhere("r.status = 'active'");
    return;
  }
  qb.andWhere("((r.changedVersion <= :asOfVersion AND r.status = 'active') OR r.changedVersion > :asOfVersion)", {
    asOfVersion: at.version,
  });
}

/**
 * Each row changed after the horizon's version, as its newest history entry at that version says it was (wording,
 * inputs, revision, origin); dropped when it was not active then. One indexed read (ix_memory_history_at) for all.
 */
export async function asOfRows(m: EntityManager, rows: MemoryRecord[], at: MemoryHorizon | undefined) {
  const changed = at ? rows.filter((r) => Number(r.changedVersion) > at.version) : [];
  if (changed.length === 0) return rows;
  const history = await m
    .getRepository(MemoryHistoryRecord)
    .createQueryBuilder('h')
    .where('h.campaignId = :campaignId AND h.memoryId IN (:...ids) AND h.validFrom <= :v', {
      campaignId: rows[0].campaignId,
      ids: changed.map((r) => r.id),
      v: at!.version,
    })
    .orderBy('h.validFrom', 'ASC')
    .addOrderBy('h.seq', 'ASC')
    .getMany();
  const then = new Map(history.map((h) => [h.memoryId, h])); // the last per memory wins: the newest at V
  return rows.flatMap((r) => {
    if (Number(r.changedVersion) <= at!.version) return [r];
    const h = then.get(r.id);
    if (!h || h.status !== 'active') return [];
    const past = { summary: h.summary, inputIndexes: h.inputIndexes, revision: h.revision, origin: h.origin };
    return [Object.assign(new MemoryRecord(), r, past)];
  });
}
