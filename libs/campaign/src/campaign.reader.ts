import { Database, EventStore, gameStream, memoryStream, sql, StoredEvent } from '@app/event-store';
import { Brackets, EntityManager } from 'typeorm';
import { CampaignStateCache } from './projections/campaign-state.cache';
import { notFound } from '@app/common';
import { CampaignState, Message } from './domain/state';
import { CampaignRecord } from './projections/campaign.entity';
import { MessageRecord } from './projections/message.entity';
import { fromMessageRecord } from './projections/message.mapper';
import { MessageWitnessRecord } from './projections/witness.entity';

export interface CampaignSnapshot {
  state: CampaignState;
  processedVersion: number;
  memoryVersion: number;
}

export type StoredMessage = Message & { version: number };

/** Read side of the campaign projections; every read is an indexed lookup or range. */
export class CampaignReader {
  constructor(
    private readonly db: Database,
    private readonly store: EventStore,
    /** Shared with the CampaignProjector, so that reads reuse the state the last write left. */
    private readonly cache = new CampaignStateCache(),
  ) {}

  async find(campaignId: string): Promise<CampaignSnapshot | null> {
    return this.db.read(async (m) => {
      type Head = { version: number | string; processed_version: number | string; memory_version: number | string };
      const head = (await sql<Head>(m, 'SELECT "version", "processed_version", "memory_version" FROM "campaigns" WHERE "id" = ?', [campaignId])).rows[0];
      if (!head) return null;
      const version = Number(head.version);
      let state = this.cache.get(campaignId, version);
      if (!state) {
        // The document is read only when the cache lacks this version; a newer row means a newer version.
        const row = (await sql<{ version: number | string; state: string }>(m, 'SELECT "version", "state" FROM "campaigns" WHERE "id" = ?', [campaignId])).rows[0];
        state = { ...(JSON.parse(row.state) as CampaignState), version: Number(row.version) };
        this.cache.put(state, row.state.length);
        if (state.version !== version) return this.snapshotAt(m, campaignId, state);
      }
      return { state, processedVersion: Number(head.processed_version), memoryVersion: Number(head.memory_version) };
    });
  }

  /** A write landed between our two reads (PostgreSQL, another replica): take the counters with the newer state. */
  private async snapshotAt(m: EntityManager, campaignId: string, state: CampaignState): Promise<CampaignSnapshot> {
    const row = (await sql<{ processed_version: number | string; memory_version: number | string }>(m, 'SELECT "processed_version", "memory_version" FROM "campaigns" WHERE "id" = ?', [campaignId])).rows[0];
    return { state, processedVersion: Number(row.processed_version), memoryVersion: Number(row.memory_version) };
  }

  async get(campaignId: string): Promise<CampaignSnapshot> {
    const found = await this.find(campaignId);
    if (!found) throw notFound('CAMPAIGN_NOT_FOUND', `campaign ${campaignId} not found`);
    return found;
  }

  /** Messages after an exclusive index, oldest first. */
  async messages(campaignId: string, o: { after?: number; limit: number; locationId?: string }): Promise<StoredMessage[]> {
    return this.db.read(async (m) => {
      const qb = m
        .getRepository(MessageRecord)
        .createQueryBuilder('m')
        .where('m.campaignId = :campaignId AND m.index > :after', { campaignId, after: o.after ?? -1 })
        .orderBy('m.index', 'ASC')
        .limit(o.limit);
      if (o.locationId !== undefined) qb.andWhere('m.locationId = :locationId', { locationId: o.locationId });
      return (await qb.getMany()).map(fromMessageRecord);
    });
  }

  /** The last `limit` messages (optionally from a round on), oldest first. */
  async lastMessages(campaignId: string, o: { limit: number; fromRound?: number; beforeIndex?: number }): Promise<StoredMessage[]> {
    return this.db.read(async (m) => {
      const qb = m.getRepository(MessageRecord).createQueryBuilder('m').where('m.campaignId = :campaignId', { campaignId });
      if (o.fromRound !== undefined) qb.andWhere('m.round >= :round', { round: o.fromRound });
      if (o.beforeIndex !== undefined) qb.andWhere('m.index < :before', { before: o.beforeIndex });
      const rows = await qb.orderBy('m.index', 'DESC').limit(o.limit).getMany();
      return rows.map(fromMessageRecord).reverse();
    });
  }

  async messagesByIndex(campaignId: string, indexes: number[]): Promise<StoredMessage[]> {
    if (indexes.length === 0) return [];
    return this.db.read(async (m) =>
      (
        await m
          .getRepository(MessageRecord)
          .createQueryBuilder('m')
          .where('m.campaignId = :campaignId AND m.index IN (:...indexes)', { campaignId, indexes })
          .orderBy('m.index', 'ASC')
          .getMany()
      ).map(fromMessageRecord),
    );
  }

  /**
   * Scope selection for the memory worker: `locationId`, index > cursor, recorded before `beforeVersion`;
   * §8: only rounds up to `maxRound`, only messages `witnessedBy` a viewer key.
   */
  async messagesForScope(
    campaignId: string,
    o: { locationId?: string; afterIndex: number; beforeVersion: number; roles?: string[]; maxRound?: number; witnessedBy?: string },
  ): Promise<StoredMessage[]> {
    return this.db.read(async (m) => {
      const qb = m
        .getRepository(MessageRecord)
        .createQueryBuilder('m')
        .where('m.campaignId = :campaignId AND m.index > :after AND m.version < :before', { campaignId, after: o.afterIndex, before: o.beforeVersion });
      if (o.maxRound !== undefined) qb.andWhere('m.round <= :maxRound', { maxRound: o.maxRound });
      if (o.witnessedBy !== undefined) {
        qb.innerJoin(MessageWitnessRecord, 'w', 'w.campaignId = m.campaignId AND w.index = m.index AND w.viewerId = :viewer', { viewer: o.witnessedBy });
      }
      if (o.locationId !== undefined) qb.andWhere('m.locationId = :locationId', { locationId: o.locationId });
      if (o.roles) qb.andWhere(new Brackets((b) => b.where('m.role IN (:...roles)', { roles: o.roles })));
      return (await qb.orderBy('m.index', 'ASC').getMany()).map(fromMessageRecord);
    });
  }

  /** The subset of `indexes` that `viewer` (a witness key) witnessed. */
  async witnessed(campaignId: string, viewer: string, indexes: number[]): Promise<Set<number>> {
    if (indexes.length === 0) return new Set();
    const rows = await this.db.read((m) =>
      m
        .getRepository(MessageWitnessRecord)
        .createQueryBuilder('w')
        .select('w.index', 'idx')
        .where('w.campaignId = :campaignId AND w.viewerId = :viewer AND w.index IN (:...indexes)', { campaignId, viewer, indexes })
        .getRawMany<{ idx: number | string }>(),
    );
    return new Set(rows.map((r) => Number(r.idx)));
  }

  async events(campaignId: string, stream: 'game' | 'memory', o: { after?: number; limit: number }): Promise<StoredEvent[]> {
    const id = stream === 'game' ? gameStream(campaignId) : memoryStream(campaignId);
    return this.store.readStream(id, { after: o.after, limit: o.limit });
  }

  /** Campaigns whose worker checkpoint is behind their version (the worker's catch-up list). */
  async behind(): Promise<string[]> {
    return this.db.read(async (m) =>
      (await m.getRepository(CampaignRecord).createQueryBuilder('c').select('c.id', 'id').where('c.processedVersion < c.version').getRawMany<{ id: string }>()).map((r) => r.id),
    );
  }
}
