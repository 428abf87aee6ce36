import { EventStore, gameStream, memoryStream, StoredEvent } from '@app/event-store';
import { Database, sql } from '@app/database';
import { CampaignStateCache } from './projections/campaign-state.cache';
import { readCampaignRow } from './projections/campaign-row';
import { notFound } from '@app/common';
import { CampaignState, Message } from './domain/state';
import { PUBLIC_WITNESS } from './domain/witnessing';
import { EntityManager } from 'typeorm';
import { MessageRecord } from './projections/message.entity';
import { fromMessageRecord } from './projections/message.mapper';
import { MessageWitnessRecord } from './projections/witness.entity';

/** A campaign's state; how far the memory worker got is memory's to say (its CheckpointStore). */
export interface CampaignSnapshot {
  state: CampaignState;
}

export type StoredMessage = Message & { version: number };

/** A campaign as the campaign list shows it (DESIGN §10 "Fork"). */
export interface CampaignListItem {
  id: string;
  name: string;
  version: number;
  createdAt: string;
}

/** The messages table's columns under MessageRecord's property names (plain-SQL reads map through fromMessageRecord). */
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
].join(', ');

interface ListRow {
  id: string;
  name: string;
  version: number | string;
  created_at: string;
}

const streamOf = (campaignId: string, stream: 'game' | 'memory') => (stream === 'game' ? gameStream(campaignId) : memoryStream(campaignId));

/** Read side of the campaign projections; every read is an indexed lookup or range. */
export class CampaignReader {
  constructor(
    private readonly db: Database,
    private readonly store: EventStore,
    /** Shared with the CampaignProjector, so that reads reuse the state the last write left. */
    private readonly cache = new CampaignStateCache(),
  ) {}

  async find(campaignId: string): Promise<CampaignSnapshot | null> {
    const row = await this.db.read((m) => readCampaignRow(m, campaignId, this.cache));
    if (!row) return null;
    // A committed row: later reads and writes may reuse its parsed state.
    if (row.parsedChars !== null) this.cache.put(row.state, row.parsedChars);
    return { state: row.state };
  }

  async get(campaignId: string): Promise<CampaignSnapshot> {
    const found = await this.find(campaignId);
    if (!found) throw notFound('CAMPAIGN_NOT_FOUND', `campaign ${campaignId} not found`);
    return found;
  }

  /** Messages after an exclusive index, oldest first; with `witnessedBy` (a viewer key, §8) only those it witnessed. */
  async messages(campaignId: string, o: { after?: number; limit: number; locationId?: string; witnessedBy?: string }): Promise<StoredMessage[]> {
    return this.db.read(async (m) => {
      const qb = m
        .getRepository(MessageRecord)
        .createQueryBuilder('m')
        .where('m.campaignId = :campaignId AND m.index > :after', { campaignId, after: o.after ?? -1 })
        .orderBy('m.index', 'ASC')
        .limit(o.limit);
      if (o.locationId !== undefined) qb.andWhere('m.locationId = :locationId', { locationId: o.locationId });
      if (o.witnessedBy !== undefined) {
        qb.innerJoin(MessageWitnessRecord, 'w', 'w.campaignId = m.campaignId AND w.index = m.index AND w.viewerId = :viewer', { viewer: o.witnessedBy });
      }
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
    // Plain SQL: the memory worker runs this once per scope of every trigger, where query building showed in profiles.
    const where = ['m.campaign_id = ?', 'm.idx > ?', 'm.version < ?'];
    const params: unknown[] = [campaignId, o.afterIndex, o.beforeVersion];
    let join = '';
    if (o.witnessedBy === PUBLIC_WITNESS) {
      where.push("m.visibility = 'public'");
    } else if (o.witnessedBy !== undefined) {
      join = ' INNER JOIN message_witnesses w ON w.campaign_id = m.campaign_id AND w.idx = m.idx AND w.viewer_id = ?';
      params.splice(0, 0, o.witnessedBy);
    }
    const and = (condition: string, ...values: unknown[]) => {
      where.push(condition);
      params.push(...values);
    };
    if (o.maxRound !== undefined) and('m.round <= ?', o.maxRound);
    if (o.locationId !== undefined) and('m.location_id = ?', o.locationId);
    if (o.roles) and(`m.role IN (${o.roles.map(() => '?').join(', ')})`, ...o.roles);
    const text = `SELECT ${MESSAGE_COLUMNS} FROM messages m${join} WHERE ${where.join(' AND ')} ORDER BY m.idx ASC`;
    const { rows } = await this.db.read((m) => sql<MessageRecord>(m, text, params));
    return rows.map(fromMessageRecord);
  }

  /** The subset of `indexes` that `viewer` (a witness key) witnessed. */
  async witnessed(campaignId: string, viewer: string, indexes: number[]): Promise<Set<number>> {
    if (indexes.length === 0) return new Set();
    if (viewer === PUBLIC_WITNESS) {
      const rows = await this.db.read((m) =>
        m
          .getRepository(MessageRecord)
          .createQueryBuilder('m')
          .select('m.index', 'idx')
          .where("m.campaignId = :campaignId AND m.visibility = 'public' AND m.index IN (:...indexes)", { campaignId, indexes })
          .getRawMany<{ idx: number | string }>(),
      );
      return new Set(rows.map((r) => Number(r.idx)));
    }
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

  async events(campaignId: string, stream: 'game' | 'memory', o: { after?: number; until?: number; limit: number }): Promise<StoredEvent[]> {
    return this.store.readStream(streamOf(campaignId, stream), { after: o.after, until: o.until, limit: o.limit });
  }

  /** Both stream versions from one statement, so they describe one moment: null when there is no such campaign. */
  async heads(campaignId: string): Promise<{ game: number; memory: number } | null> {
    const [game, memory] = await this.store.streamVersions([gameStream(campaignId), memoryStream(campaignId)]);
    // The campaign row and its game stream's first event commit together: no game stream, no campaign.
    return game > 0 ? { game, memory } : null;
  }

  /** A stream's version as of a global position (where an event of the other stream stands). */
  versionAt(campaignId: string, stream: 'game' | 'memory', position: number): Promise<number> {
    return this.store.streamVersionAt(streamOf(campaignId, stream), position);
  }

  /** Campaigns by id after an exclusive id, `limit` of those `visible` accepts (an API key's scope). */
  async list(o: { after?: string; limit: number; visible?: (id: string) => boolean }): Promise<CampaignListItem[]> {
    const page = Math.max(o.limit, 200);
    const found: CampaignListItem[] = [];
    let after = o.after ?? '';
    for (;;) {
      const text = 'SELECT "id", "name", "version", "created_at" FROM "campaigns" WHERE "id" > ? ORDER BY "id" LIMIT ?';
      const { rows } = await this.db.read((m) => sql<ListRow>(m, text, [after, page]));
      for (const r of rows) {
        if (o.visible && !o.visible(r.id)) continue;
        found.push({ id: r.id, name: r.name, version: Number(r.version), createdAt: r.created_at });
        if (found.length === o.limit) return found;
      }
      if (rows.length < page) return found;
      after = rows[rows.length - 1].id;
    }
  }

  /** Every campaign's game version (compared with memory's checkpoints: which campaigns are behind). */
  async versions(): Promise<Map<string, number>> {
    const { rows } = await this.db.read((m) => sql<{ id: string; version: number | string }>(m, 'SELECT "id", "version" FROM "campaigns"'));
    return new Map(rows.map((r) => [r.id, Number(r.version)]));
  }

  /**
   * PostgreSQL: takes the campaign row (where game writers queue) before memory events get their
   * positions, so a campaign's events commit in position order and the event stream can resume from
   * one event id (docs/stream.md). SQLite has one writer, so the order holds already.
   */
  async lockForAppend(m: EntityManager, campaignId: string): Promise<void> {
    if (this.db.dialect === 'postgres') await sql(m, 'SELECT "id" FROM "campaigns" WHERE "id" = ? FOR UPDATE', [campaignId]);
  }
}
