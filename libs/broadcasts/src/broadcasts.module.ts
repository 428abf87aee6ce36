import { Clock, CLOCK } from '@app/common';
import { Database, DATABASE } from '@app/database';
import { EVENT_STORE, EventStore } from '@app/event-store';
import { SEARCH_INDEX, SearchIndex } from '@app/search';
import { Global, Module } from '@nestjs/common';
import { BroadcastService } from './broadcast.service';

/** Broadcasts (DESIGN §7): agent-to-agent announcements of no campaign, posted and indexed in one commit. */
@Global()
@Module({
  providers: [
    {
      provide: BroadcastService,
      useFactory: (db: Database, store: EventStore, index: SearchIndex, clock: Clock) =>
        new BroadcastService(db, store, index, clock),
      inject: [DATABASE, EVENT_STORE, SEARCH_INDEX, CLOCK],
    },
  ],
  exports: [BroadcastService],
})
export class BroadcastsModule {}
