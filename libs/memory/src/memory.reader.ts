import { Database } from '@app/database';
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

/** Read side of memories and cursors: indexed, newest first, never a scan of history. */
export class MemoryReader {
  constructor(private readonly db: Database) {}

  /** With `viewer` (a witness key, §8): only memories whose every input message that viewer witnessed. */
  async list(
    campaignId: string,
    o: { scope?: string; subjectId?: string; limit: number; before?: string; viewer?: string },
  ): Promise<MemoryView[]> {
    return this.db.read(async (m) => {
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
  ): Promise<MemoryView[]> {
    return this.list(campaignId, { scope, subjectId, limit, viewer });
  }

  /** Memories by id (recall), filtered to what `viewer` may see when given. */
  async byIds(campaignId: string, ids: string[], viewer?: string): Promise<MemoryView[]> {
    if (ids.length === 0) return [];
    return this.db.read(async (m) => {
      const qb = m
        .getRepository(MemoryRecord)
        .createQueryBuilder('r')
        .where('r.campaignId = :campaignId AND r.id IN (:...ids)', { campaignId, ids });
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

  async cursors(campaignId: string): Promise<Cursors> {
    const rows = await this.db.read((m) => m.getRepository(CursorRecord).findBy({ campaignId }));
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
  };
}
