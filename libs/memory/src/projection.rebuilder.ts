import { CampaignProjector, CampaignState, emptyState, InlineProjection } from '@app/campaign';
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
 * Applies consecutive events of one stream to the projections, as the append that wrote them did: game events to the
 * campaign projector (with `gameEventProjections`, memory's own projections of game events, after its registered
 * ones, like the live ones), memory events to the memory projector. The rebuild replays the whole log through it; an
 * import (DESIGN §15) the events it appends, through the app's projectors (which carry their indexers and projections).
 */
export class StreamReplay {
  /** The campaigns' states as the replayed events leave them. */
  readonly states = new Map<string, CampaignState>();

  constructor(
    private readonly campaigns: CampaignProjector,
    private readonly memories: MemoryProjector,
    private readonly gameEventProjections: InlineProjection[] = [],
  ) {}

  /**
   * A replay through projectors that carry none of memory's projections of game events (the rebuild's, an offline
   * import's): retractions and corrections run after each game batch, as the app's registered ones do.
   */
  static withMemoryProjections(campaigns: CampaignProjector, memories: MemoryProjector): StreamReplay {
    return new StreamReplay(campaigns, memories, [new RetractionProjection(), new CorrectionsProjection(memories)]);
  }

  /** `events`: consecutive events of one stream, in order. */
  async apply(m: EntityManager, events: StoredEvent[]): Promise<'game' | 'memory' | null> {
    const stream = events[0].streamId;
    if (stream.startsWith(GAME)) {
      const id = stream.slice(GAME.length);
      const before = this.states.get(id) ?? emptyState(id);
      this.states.set(id, await this.campaigns.apply(m, before, events, this.gameEventProjections));
      return 'game';
    }
    if (stream.startsWith(MEMORY)) {
      await this.memories.apply(m, stream.slice(MEMORY.length), events);
      return 'memory';
    }
    return null;
  }
}

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
  ) {}

  async rebuild(batchSize = 2000): Promise<ProjectionRebuildReport> {
    return this.db.transaction(async (m) => {
      await this.memories.reset(m);
      await this.campaigns.reset(m);
      // The projector passed in is one without memory's projections (the app's has them).
      const replay = StreamReplay.withMemoryProjections(this.campaigns, this.memories);
      const report: ProjectionRebuildReport = { campaigns: 0, gameEvents: 0, memoryEvents: 0 };
      for (let after = 0; ;) {
        const page = await this.store.readAll({ after, limit: batchSize }, m);
        if (page.length === 0) break;
        after = page[page.length - 1].position;
        // Consecutive events of one stream are applied together, as the append that wrote them did.
        for (let i = 0; i < page.length;) {
          let j = i + 1;
          while (j < page.length && page[j].streamId === page[i].streamId) j++;
          const kind = await replay.apply(m, page.slice(i, j));
          if (kind === 'game') report.gameEvents += j - i;
          if (kind === 'memory') report.memoryEvents += j - i;
          i = j;
        }
      }
      report.campaigns = replay.states.size;
      return report;
    });
  }
}
