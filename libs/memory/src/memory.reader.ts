import { Database, sql } from '@app/database';
import { memoryBound } from '@app/campaign';
import type { WordingId } from '@app/search';
import { EntityManager } from 'typeorm';
import { MemoryWitnessRecord } from './layers.entity';
import { CursorRecord, MemoryHistoryRecord, MemoryRecord } from './memory.entity';
import { asOfRows, MemoryHorizon, servedAt } from './memory-horizon';
import { wordingId } from './wordings';
import type { MemoryRecordedData } from './memory-events';

export type { MemoryHorizon } from './memory-horizon';

/** The fields a memory keeps from its MemoryRecorded event, under their own names. */
type RecordedFields = Omit<MemoryRecordedData, 'memoryId' | 'scope' | 'cursor' | 'inputIndexes' | UsageFields>;
type UsageFields = 'attempts' | 'inputTokens' | 'outputTokens';

export interface MemoryView extends RecordedFields {
  id: string;
  scope: string;
  /** §10: 1 as recorded, +1 per revision or correction (as of the version read). */
  revision: number;
  /** §10: `model`, or `dm` for a game master's correction. */
  origin: string;
}

export interface Cursors {
  world: number;
  locations: Record<string, number>;
  npcs: Record<string, number>;
}

/** Read side of memories and cursors: indexed, newest first, never a scan of history. */
export class MemoryReader {
  constructor(private readonly db: Database) {}

  /**
   * With `viewer` (a witness key, §8): only memories whose every input message that viewer witnessed. With `at`
   * (DESIGN §10): only what was served at that horizon — recorded through its memory version, and active then (a row
   * changed after it is read as its history says it was, which may drop it or bring it back).
   */
  async list(
    campaignId: string,
    o: { scope?: string; subjectId?: string; limit: number; before?: string; viewer?: string; at?: MemoryHorizon },
  ): Promise<MemoryView[]> {
    return this.db.read(async (m) => {
      let below: number | undefined;
      if (o.before) {
        const anchor = await m.getRepository(MemoryRecord).findOneBy({ id: o.before, campaignId });
        below = anchor ? Number(anchor.memoryVersion) : -1;
      }
      const out: MemoryView[] = [];
      // Rows whose status at the horizon comes from history may drop out: page on until `limit` are served.
      for (;;) {
        const qb = m
          .getRepository(MemoryRecord)
          .createQueryBuilder('r')
          .where('r.campaignId = :campaignId', { campaignId });
        if (o.viewer)
          qb.innerJoin(
            MemoryWitnessRecord,
            'w',
            'w.campaignId = r.campaignId AND w.memoryId = r.id AND w.viewerId = :viewer',
            { viewer: o.viewer },
          );
        if (o.scope) qb.andWhere('r.scope = :scope', { scope: o.scope });
        if (o.subjectId) qb.andWhere('r.subjectId = :subjectId', { subjectId: o.subjectId });
        // The as-of bound: the last column of ix_memories_scope, so a scope's newest-first walk starts at it.
        if (o.at) qb.andWhere('r.memoryVersion <= :upTo', { upTo: memoryBound(o.at) });
        if (below !== undefined) qb.andWhere('r.memoryVersion < :v', { v: below });
        servedAt(qb, o.at);
        const want = o.limit - out.length;
        const rows = await qb.orderBy('r.memoryVersion', 'DESC').limit(want).getMany();
        out.push(...(await asOfRows(m, rows, o.at)).map(toView));
        if (rows.length < want || out.length >= o.limit) return out;
        below = Number(rows[rows.length - 1].memoryVersion);
      }
    });
  }

  /** Last `limit` memories of one scope/subject, newest first. */
  async latest(
    campaignId: string,
    scope: string,
    subjectId: string,
    limit: number,
    viewer?: string,
    at?: MemoryHorizon,
  ): Promise<MemoryView[]> {
    return this.list(campaignId, { scope, subjectId, limit, viewer, at });
  }

  /** Memories by id (recall), filtered to what `viewer` may see when given. */
  async byIds(campaignId: string, ids: string[], viewer?: string, at?: MemoryHorizon): Promise<MemoryView[]> {
    if (ids.length === 0) return [];
    return this.db.read(async (m) => {
      const qb = m
        .getRepository(MemoryRecord)
        .createQueryBuilder('r')
        .where('r.campaignId = :campaignId AND r.id IN (:...ids)', { campaignId, ids });
      if (at) qb.andWhere('r.memoryVersion <= :upTo', { upTo: memoryBound(at) });
      servedAt(qb, at);
      if (viewer)
        qb.innerJoin(
          MemoryWitnessRecord,
          'w',
          'w.campaignId = r.campaignId AND w.memoryId = r.id AND w.viewerId = :viewer',
          { viewer },
        );
      return (await asOfRows(m, await qb.getMany(), at)).map(toView);
    });
  }

  /**
   * Each memory's wording served at `at` (DESIGN §10: the index keeps a row per wording — recorded,
   * revised, corrected), for the memories of `ids` served then; a memory not served then (deleted, withheld, not yet
   * recorded) is absent. A search keeps a memory hit only when it found this wording. Primary-key and
   * ix_memory_history_at lookups of the hits only.
   */
  async wordingsAt(campaignId: string, ids: string[], at?: MemoryHorizon): Promise<Map<string, WordingId>> {
    const served = (await this.byIds(campaignId, [...new Set(ids)], undefined, at)).map((v) => v.id);
    if (served.length === 0) return new Map();
    return this.db.read(async (m) => {
      const qb = m
        .getRepository(MemoryHistoryRecord)
        .createQueryBuilder('h')
        .where('h.campaignId = :campaignId AND h.memoryId IN (:...ids)', { campaignId, ids: served })
        .andWhere("h.reason IN ('recorded', 'revised', 'corrected')");
      if (at) qb.andWhere('h.validFrom <= :v', { v: at.version });
      const rows = await qb.orderBy('h.validFrom', 'ASC').addOrderBy('h.seq', 'ASC').getMany();
      // The last per memory wins: its wording at the horizon.
      return new Map(rows.map((h) => [h.memoryId, wordingId(Number(h.searchSeq))]));
    });
  }

  /**
   * Every memory row, by campaign and memory version, `limit` after an exclusive key, inside `m` (the search
   * index's rebuild, which runs in its own transaction).
   */
  async page(
    m: EntityManager,
    after: { campaignId: string; memoryVersion: number } | null,
    limit: number,
  ): Promise<MemoryRecord[]> {
    const qb = m.getRepository(MemoryRecord).createQueryBuilder('r');
    if (after) {
      const key = { c: after.campaignId, v: after.memoryVersion };
      qb.where('(r.campaignId > :c OR (r.campaignId = :c AND r.memoryVersion > :v))', key);
    }
    return qb.orderBy('r.campaignId', 'ASC').addOrderBy('r.memoryVersion', 'ASC').limit(limit).getMany();
  }

  /**
   * Cursors as of memory version `upTo`: per scope and subject, the cursor its newest memory at `upTo` recorded (the
   * cursor may pass the memory's last input). The subjects come from a skip scan of ix_memories_scope (one seek per
   * subject: the next subject id after the last), then one backward seek each; never a walk of every memory.
   */
  private cursorsAt(campaignId: string, upTo: number): Promise<CursorRecord[]> {
    const next = 'SELECT MIN(x.subject_id) FROM memories x WHERE x.campaign_id = ? AND x.scope = ';
    const text =
      'WITH RECURSIVE s (scope, subject_id) AS (' +
      `SELECT k.scope, (${next}k.scope) FROM (SELECT 'world' AS scope UNION ALL SELECT 'location' UNION ALL ` +
      "SELECT 'npc') k " +
      `UNION ALL SELECT s.scope, (${next}s.scope AND x.subject_id > s.subject_id) FROM s` +
      ' WHERE s.subject_id IS NOT NULL' +
      ') SELECT s.scope AS scope, s.subject_id AS subject_id, (SELECT COALESCE(r.cursor, -1) FROM memories r' +
      ' WHERE r.campaign_id = ? AND r.scope = s.scope AND r.subject_id = s.subject_id AND r.memory_version <= ?' +
      ' ORDER BY r.memory_version DESC LIMIT 1) AS value FROM s WHERE s.subject_id IS NOT NULL';
    return this.db.read(async (m) => {
      const { rows } = await sql<{ scope: string; subject_id: string; value: number | string | null }>(m, text, [
        campaignId,
        campaignId,
        campaignId,
        upTo,
      ]);
      // value null: the subject's first memory came after `upTo`.
      return rows
        .filter((r) => r.value !== null)
        .map((r) => ({ campaignId, scope: r.scope, subjectId: r.subject_id, value: Number(r.value) }));
    });
  }

  /**
   * The memory cursors; with a past horizon (`asOf`), each scope's cursor after its newest memory at that horizon.
   * `tx`: the current ones read inside that transaction (a fork's answer is built in the fork's own).
   */
  async cursors(campaignId: string, at?: MemoryHorizon & { current: boolean }, tx?: EntityManager): Promise<Cursors> {
    const current = (m: EntityManager) => m.getRepository(CursorRecord).findBy({ campaignId });
    const rows =
      at && !at.current
        ? await this.cursorsAt(campaignId, memoryBound(at))
        : tx
          ? await current(tx)
          : await this.db.read(current);
    const out: Cursors = { world: -1, locations: {}, npcs: {} };
    for (const r of rows) {
      if (r.scope === 'world') out.world = Number(r.value);
      else if (r.scope === 'location') out.locations[r.subjectId] = Number(r.value);
      else if (r.scope === 'npc') out.npcs[r.subjectId] = Number(r.value);
    }
    return out;
  }
}

export function toView(r: MemoryRecord): MemoryView {
  return {
    id: r.id,
    scope: r.scope,
    subjectId: r.subjectId,
    summary: r.summary,
    tags: JSON.parse(r.tags),
    locationId: r.locationId,
    npcIds: JSON.parse(r.npcIds),
    questId: r.questId,
    encounterId: r.encounterId,
    sinceMessageIndex: Number(r.sinceMessageIndex),
    throughMessageIndex: Number(r.throughMessageIndex),
    sinceTimestamp: r.sinceTimestamp,
    createdAt: r.createdAt,
    triggerVersion: Number(r.triggerVersion),
    revision: Number(r.revision),
    origin: r.origin,
  };
}
