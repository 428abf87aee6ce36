import { CampaignProjector, CampaignRecord, CampaignState, emptyState, MessageRecord, MessageWitnessRecord, ToolCallRecord } from '@app/campaign';
import { EventRecord, gameStream, memoryStream, StoredEvent } from '@app/event-store';
import { Database } from '@app/database';
import { EntityManager } from 'typeorm';
import { GlossaryTermRecord, MemoryWitnessRecord, RollingSummaryRecord } from './layers.entity';
import { CursorRecord, MemoryRecord } from './memory.entity';
import { MemoryProjector } from './memory.projector';

export interface ProjectionRebuildReport {
  campaigns: number;
  gameEvents: number;
  memoryEvents: number;
}

/** Every table derived from the game and memory streams (the search index has its own rebuilder). */
const PROJECTIONS = [MessageWitnessRecord, ToolCallRecord, MessageRecord, MemoryWitnessRecord, GlossaryTermRecord, RollingSummaryRecord, CursorRecord, MemoryRecord, CampaignRecord];

const GAME = gameStream('');
const MEMORY = memoryStream('');

/**
 * Empties the projections and replays both streams, in global order, through the same projectors the live
 * service uses (without their indexers), in one transaction. Each campaign keeps its worker checkpoint:
 * the memories it already made are replayed from their events, never made again.
 */
export class ProjectionRebuilder {
  constructor(
    private readonly db: Database,
    private readonly campaigns: CampaignProjector,
    private readonly memories: MemoryProjector,
  ) {}

  async rebuild(batchSize = 2000): Promise<ProjectionRebuildReport> {
    return this.db.transaction(async (m) => {
      const checkpoints = new Map((await m.getRepository(CampaignRecord).find({ select: { id: true, processedVersion: true } })).map((r) => [r.id, Number(r.processedVersion)]));
      for (const entity of PROJECTIONS) await m.createQueryBuilder().delete().from(entity).execute();
      const states = new Map<string, CampaignState>();
      const report: ProjectionRebuildReport = { campaigns: 0, gameEvents: 0, memoryEvents: 0 };
      for (let after = 0; ; ) {
        const page = await m.getRepository(EventRecord).createQueryBuilder('e').where('e.position > :after', { after }).orderBy('e.position', 'ASC').limit(batchSize).getMany();
        if (page.length === 0) break;
        after = Number(page[page.length - 1].position);
        // Consecutive events of one stream are applied together, as the append that wrote them did.
        for (let i = 0; i < page.length; ) {
          let j = i + 1;
          while (j < page.length && page[j].streamId === page[i].streamId) j++;
          await this.replay(m, page.slice(i, j).map(toStored), states, report);
          i = j;
        }
      }
      for (const [id, processedVersion] of checkpoints) {
        if (states.has(id)) await m.getRepository(CampaignRecord).update({ id }, { processedVersion });
      }
      report.campaigns = states.size;
      return report;
    });
  }

  private async replay(m: EntityManager, events: StoredEvent[], states: Map<string, CampaignState>, report: ProjectionRebuildReport): Promise<void> {
    const stream = events[0].streamId;
    if (stream.startsWith(GAME)) {
      const id = stream.slice(GAME.length);
      states.set(id, await this.campaigns.apply(m, states.get(id) ?? emptyState(id), events));
      report.gameEvents += events.length;
    } else if (stream.startsWith(MEMORY)) {
      await this.memories.apply(m, stream.slice(MEMORY.length), events);
      report.memoryEvents += events.length;
    }
  }
}

function toStored(r: EventRecord): StoredEvent {
  return { position: Number(r.position), streamId: r.streamId, version: Number(r.version), type: r.type, data: JSON.parse(r.data), metadata: JSON.parse(r.metadata), recordedAt: r.recordedAt };
}
