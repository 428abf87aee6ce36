import { CampaignReader, TimelineService } from '@app/campaign';
import { Database, DATABASE } from '@app/database';
import { MemoryReader } from '@app/memory';
import { createSearchTimeline, SEARCH_INDEX, SearchIndex } from '@app/search';
import { Global, Module, Provider } from '@nestjs/common';
import { SearchService } from './search.service';

/** The index's rows in fork, rewind and delete (DESIGN §10), registered with the campaign's timelines. */
const SEARCH_TIMELINE = Symbol('SEARCH_TIMELINE');
const timeline: Provider = {
  provide: SEARCH_TIMELINE,
  useFactory: (db: Database, timelines: TimelineService) => {
    const participant = createSearchTimeline(db);
    timelines.register(participant);
    return participant;
  },
  inject: [DATABASE, TimelineService],
};

/** The search feature (DESIGN §7): campaign search over the index, filtered to what the caller may be served. */
@Global()
@Module({
  providers: [
    timeline,
    {
      provide: SearchService,
      useFactory: (reader: CampaignReader, index: SearchIndex, memories: MemoryReader) =>
        new SearchService(reader, index, memories),
      inject: [CampaignReader, SEARCH_INDEX, MemoryReader],
    },
  ],
  exports: [SearchService],
})
export class RecallModule {}
