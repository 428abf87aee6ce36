import { CampaignProjector, CampaignState, emptyState, GameEventProjection } from '@app/campaign';
import { EventStore, gameStream, memoryStream, StoredEvent } from '@app/event-store';
import { Database } from '@app/database';
import { EntityManager } from 'typeorm';
import { CorrectionsProjection } from './corrections.projection';
import { MemoryProjector } from './memory.projector';
import { RetractionProjection } from './retraction.projection';

export interface ProjectionRebuildReport {
  campaigns: number;
  gameEvents: number;
  memoryEvents: number;
}

const GAME = gameStream('');
const MEMORY = memoryStream('');

/**
 * Asks each projector to empty its own tables and replays both streams, in global order, through the same
 * projectors the live service uses (without their indexers), in one transaction. The memory worker's
 * checkpoints are not a projection and stay: the memories it already made are replayed from their events,
 * never made again. (The search index has its own rebuilder.)
 */
export class ProjectionRebuilder {
  constructor(
    private readonly db: Database,
    private readonly store: EventStore,
    private readonly campaigns: CampaignProjector,
    private readonly memories: MemoryProjector,
  ) {
    this.gameEventProjections = [new RetractionProjection(), new CorrectionsProjection(memories)];
  }

  /** Run here, not registered on `campaigns`: pass a campaign projector without them (the app's has them). */
  private readonly gameEventProjections: GameEventProjection[];

  async rebuild(batchSize = 2000): Promise<ProjectionRebuildReport> {
    return this.db.transaction(async (m) => {
      await this.memories.reset(m);
      await this.campaigns.reset(m);
      const states = new Map<string, CampaignState>();
      const report: ProjectionRebuildReport = { campaigns: 0, gameEvents: 0, memoryEvents: 0 };
      for (let after = 0; ;) {
        const page = await this.store.readAll({ after, limit: batchSize }, m);
        if (page.length === 0) break;
        after = page[page.length - 1].position;
        // Consecutive events of one stream are applied together, as the append that wrote them did.
        for (let i = 0; i < page.length;) {
          let j = i + 1;
          while (j < page.length && page[j].streamId === page[i].streamId) j++;
          await this.replay(m, page.slice(i, j), states, report);
          i = j;
        }
      }
      report.campaigns = states.size;
      return report;
    });
  }

  private async replay(
    m: EntityManager,
    events: StoredEvent[],
    states: Map<string, CampaignState>,
    report: ProjectionRebuildReport,
  ): Promise<void> {
    const stream = events[0].streamId;
    if (stream.startsWith(GAME)) {
      const id = stream.slice(GAME.length);
      states.set(id, await this.campaigns.apply(m, states.get(id) ?? emptyState(id), events));
      // §10: memory's own projections of game events (retractions, corrections), in global order like the live ones.
      for (const projection of this.gameEventProjections) await projection.project(m, id, events);
      report.gameEvents += events.length;
    } else if (stream.startsWith(MEMORY)) {
      await this.memories.apply(m, stream.slice(MEMORY.length), events);
      report.memoryEvents += events.length;
    }
  }
}
