import { StoredEvent } from '@app/event-store';
import { EntityManager } from 'typeorm';
import { GameEvent } from '../domain/events';
import { fold } from '../domain/evolve';
import { CampaignState, emptyState, Message } from '../domain/state';
import { CampaignRecord } from './campaign.entity';
import { MessageRecord, ToolCallRecord } from './message.entity';
import { toMessageRecord } from './message.mapper';

const CHUNK = 200;

/** Listeners that index projections in the same transaction (e.g. the search index, §7). */
export interface MessageIndexer {
  indexMessages(m: EntityManager, campaignId: string, messages: Message[]): Promise<void>;
}

/** Another lib's projection of game events, run in the append's transaction (e.g. game accounts, §5). */
export interface GameEventProjection {
  project(m: EntityManager, campaignId: string, events: StoredEvent[]): Promise<void>;
}

/** Inline projections of the game stream: campaign state, messages, tool calls. */
export class CampaignProjector {
  private readonly indexers: MessageIndexer[] = [];
  private readonly projections: GameEventProjection[] = [];

  addIndexer(indexer: MessageIndexer): void {
    this.indexers.push(indexer);
  }

  addProjection(projection: GameEventProjection): void {
    this.projections.push(projection);
  }

  async load(m: EntityManager, campaignId: string): Promise<CampaignState> {
    const row = await m.getRepository(CampaignRecord).findOneBy({ id: campaignId });
    return row ? { ...(JSON.parse(row.state) as CampaignState), version: Number(row.version) } : emptyState(campaignId);
  }

  /** Applies appended events; returns the new state. Runs inside the append's transaction. */
  async apply(m: EntityManager, before: CampaignState, events: StoredEvent[]): Promise<CampaignState> {
    const after = fold(before, events.map((e) => ({ event: { type: e.type, data: e.data } as GameEvent, version: e.version, recordedAt: e.recordedAt })));
    const doc = JSON.stringify(after);
    if (before.version === 0) {
      await m.getRepository(CampaignRecord).insert({ id: after.id, name: after.name, version: after.version, processedVersion: 0, memoryVersion: 0, state: doc, createdAt: after.createdAt });
    } else {
      const res = await m
        .createQueryBuilder()
        .update(CampaignRecord)
        .set({ version: after.version, name: after.name, state: doc })
        .where('id = :id AND version = :v', { id: after.id, v: before.version })
        .execute();
      if (res.affected === 0) throw new Error(`campaign ${after.id} moved during append`);
    }
    const messages = events.filter((e) => e.type === 'MessageRecorded');
    const recorded = messages.map((e) => e.data as Message);
    for (let i = 0; i < messages.length; i += CHUNK) {
      const rows = messages.slice(i, i + CHUNK).map((e) => toMessageRecord(after.id, e.data as Message, e.version));
      await m.createQueryBuilder().insert().into(MessageRecord).values(rows).updateEntity(false).execute();
    }
    const calls = recorded.flatMap((msg) => msg.toolCalls.map((c) => ({ campaignId: after.id, callId: c.id, name: c.name, messageIndex: msg.index })));
    for (let i = 0; i < calls.length; i += CHUNK) {
      await m.createQueryBuilder().insert().into(ToolCallRecord).values(calls.slice(i, i + CHUNK)).orIgnore().updateEntity(false).execute();
    }
    for (const indexer of this.indexers) if (recorded.length) await indexer.indexMessages(m, after.id, recorded);
    for (const projection of this.projections) await projection.project(m, after.id, events);
    return after;
  }
}
