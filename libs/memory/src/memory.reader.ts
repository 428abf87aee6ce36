import { Database, sql } from '@app/database';
import { memoryStream } from '@app/event-store';
import { memoryBound } from '@app/campaign';
import { EntityManager } from 'typeorm';
import { MemoryWitnessRecord } from './layers.entity';
import { CursorRecord, MemoryRecord } from './memory.entity';

export interface MemoryView {
  id: string;
  scope: string;
  subjectId: string;
  summary: string;
  tags: string[];
  locationId: string | null;
  npcIds: string[];
  questId: string | null;
  encounterId: string | null;
  sinceMessageIndex: number;
  throughMessageIndex: number;
  sinceTimestamp: string;
  createdAt: string;
  triggerVersion: number;
}

export interface Cursors {
  world: number;
  locations: Record<string, number>;
  npcs: Record<string, number>;
}

/**
 * How far a memory read sees (DESIGN §10): the memory stream through `memoryVersion` (unbounded for a current read).
 * The memory stream is ordered by trigger version, so this is the same as "outcomes of game events ≤ V".
 */
export interface MemoryHorizon {
  memoryVersion: number;
}

/** Read side of memories and cursors: indexed, newest first, never a scan of history. */
export class MemoryReader {
  constructor(private readonly db: Database) {}

  /** With `viewer` (a witness key, §8): only memories whose every input message that viewer witnessed. */
  async list(
    campaignId: string,
    o: { scope?: string; subjectId?: string; limit: number; before?: string; viewer?: string; at?: MemoryHorizon },
  ): Promise<MemoryView[]> {
    return this.db.read(async (m) => {
      const qb = m
        .getRepository(MemoryRecord)
        .createQueryBuilder('r')
        .where('r.campaignId = :campaignId', { campaignId });
      // The as-of bound: the last column of ix_memories_scope, so a scope's newest-first walk starts at it.
      if (o.at) qb.andWhere('r.memoryVersion <= :upTo', { upTo: memoryBound(o.at) });
      if (o.viewer)
        qb.innerJoin(
          MemoryWitnessRecord,
          'w',
          'w.campaignId = r.campaignId AND w.memoryId = r.id AND w.viewerId = :viewer',
          { viewer: o.viewer },
        );
      if (o.scope) qb.andWhere('r.scope = :scope', { scope: o.scope });
      if (o.subjectId) qb.andWhere('r.subjectId = :subjectId', { subjectId: o.subjectId });
      if (o.before) {
        const anchor = await m.getRepository(MemoryRecord).findOneBy({ id: o.before, campaignId });
        qb.andWhere('r.memoryVersion < :v', { v: anchor ? anchor.memoryVersion : -1 });
      }
      const rows = await qb.orderBy('r.memoryVersion', 'DESC').limit(o.limit).getMany();
      return rows.map(toView);
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
      if (viewer)
        qb.innerJoin(
          MemoryWitnessRecord,
          'w',
          'w.campaignId = r.campaignId AND w.memoryId = r.id AND w.viewerId = :viewer',
          { viewer },
        );
      return (await qb.getMany()).map(toView);
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

  private cursorsAt(campaignId: string, upTo: number): Promise<CursorRecord[]> {
    return this.db.read(async (m) => {
      const newest = await newestPerScope(m, campaignId, upTo);
      if (newest.length === 0) return [];
      const versions = newest.map((r) => Number(r.v));
      const marks = versions.map(() => '?').join(', ');
      const text = `SELECT stream_version AS v, data FROM events WHERE stream_id = ? AND stream_version IN (${marks})`;
      const events = await sql<{ v: number | string; data: string }>(m, text, [memoryStream(campaignId), ...versions]);
      const cursorOf = new Map(events.rows.map((e) => [Number(e.v), Number(JSON.parse(e.data).cursor)]));
      return newest.map((r) => ({ campaignId, scope: r.scope, subjectId: r.subject_id, value: cursorOf.get(Number(r.v))! }));
    });
  }

  /** The memory cursors; with a past horizon (`asOf`), each scope's cursor after its newest memory at that horizon. */
  async cursors(campaignId: string, at?: MemoryHorizon & { current: boolean }): Promise<Cursors> {
    const rows = at && !at.current
      ? await this.cursorsAt(campaignId, memoryBound(at))
      : await this.db.read((m) => m.getRepository(CursorRecord).findBy({ campaignId }));
    const out: Cursors = { world: -1, locations: {}, npcs: {} };
    for (const r of rows) {
      if (r.scope === 'world') out.world = Number(r.value);
      else if (r.scope === 'location') out.locations[r.subjectId] = Number(r.value);
      else if (r.scope === 'npc') out.npcs[r.subjectId] = Number(r.value);
    }
    return out;
  }
}

/**
 * Cursors as of memory version `upTo`: per scope and subject, the cursor its newest memory at `upTo` recorded (read
 * from that MemoryRecorded: the cursor may pass the memory's last input). Stand-in until lane 0's `memories.cursor`
 * column; a range of ix_memories_scope and primary-key lookups of the events, never a replay.
 */
async function newestPerScope(m: EntityManager, campaignId: string, upTo: number) {
  const text =
    'SELECT scope, subject_id, MAX(memory_version) AS v FROM memories' +
    " WHERE campaign_id = ? AND memory_version <= ? AND scope IN ('world', 'location', 'npc') GROUP BY scope, subject_id";
  return (await sql<{ scope: string; subject_id: string; v: number | string }>(m, text, [campaignId, upTo])).rows;
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
  };
}
