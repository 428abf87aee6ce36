import { CampaignProjector, CampaignReader, TimelineService } from '@app/campaign';
import { Clock, CLOCK } from '@app/common';
import { Database, DATABASE } from '@app/database';
import { EVENT_STORE, EventStore } from '@app/event-store';
import { MemoryProjector, MemoryReader } from '@app/memory';
import { Global, Module, Provider } from '@nestjs/common';
import { BroadcastService } from './broadcasts/broadcast.service';
import { createSearchIndex } from './search-index.factory';
import { SEARCH_INDEX, SearchIndex } from './search-index.port';
import { SearchIndexer } from './search-indexer';
import { SearchService } from './search.service';
import { Fts5Timeline } from './fts5/fts5.timeline';
import { PostgresTimeline } from './postgres/postgres.timeline';

/** Index rows commit in the projections' own transactions (DESIGN §7). */
const indexer: Provider = {
  provide: SearchIndexer,
  useFactory: (index: SearchIndex, campaigns: CampaignProjector, memories: MemoryProjector) => {
    const indexer = new SearchIndexer(index);
    campaigns.addIndexer(indexer);
    memories.addIndexer(indexer);
    return indexer;
  },
  inject: [SEARCH_INDEX, CampaignProjector, MemoryProjector],
};

/** The index's rows in fork, rewind and delete (DESIGN §10), for the database's dialect. */
const SEARCH_TIMELINE = Symbol('SEARCH_TIMELINE');
const timeline: Provider = {
  provide: SEARCH_TIMELINE,
  useFactory: (db: Database, timelines: TimelineService) => {
    const participant = db.dialect === 'postgres' ? new PostgresTimeline() : new Fts5Timeline();
    timelines.register(participant);
    return participant;
  },
  inject: [DATABASE, TimelineService],
};

const broadcasts: Provider = {
  provide: BroadcastService,
  useFactory: (db: Database, store: EventStore, index: SearchIndex, clock: Clock) =>
    new BroadcastService(db, store, index, clock),
  inject: [DATABASE, EVENT_STORE, SEARCH_INDEX, CLOCK],
};

/** Full-text search (FTS5 or PostgreSQL), the indexer the projections feed, and broadcasts. */
@Global()
@Module({
  providers: [
    { provide: SEARCH_INDEX, useFactory: (db: Database) => createSearchIndex(db), inject: [DATABASE] },
    indexer,
    timeline,
    {
      provide: SearchService,
      useFactory: (reader: CampaignReader, index: SearchIndex, memories: MemoryReader) =>
        new SearchService(reader, index, memories),
      inject: [CampaignReader, SEARCH_INDEX, MemoryReader],
    },
    broadcasts,
  ],
  exports: [SEARCH_INDEX, SearchIndexer, SearchService, BroadcastService],
})
export class SearchModule {}
