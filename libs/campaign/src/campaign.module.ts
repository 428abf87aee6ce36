import { Clock, CLOCK } from '@app/common';
import { Database, DATABASE } from '@app/database';
import { EVENT_STORE, EventStore, StoredEvent } from '@app/event-store';
import { SEARCH_INDEX, SearchIndex } from '@app/search';
import { Global, Inject, Injectable, Logger, Module, OnModuleInit, Provider } from '@nestjs/common';
import { AppendedListeners } from './campaign-events-appended.event';
import { CampaignReader } from './campaign.reader';
import { CAMPAIGN_RUNNER, CampaignRunner } from './campaign.runner';
import { CommandHandlers } from './commands';
import { messageSearch } from './projections/campaign.projections';
import { CampaignProjector } from './projections/campaign.projector';
import { TimelineService } from './timelines/timeline.service';

/** Optional: sees each commit's appended events before the wake-up is published (the app counts them). */
export const APPEND_OBSERVER = Symbol('APPEND_OBSERVER');
export type AppendObserver = (campaignId: string, events: StoredEvent[]) => void;

const runner: Provider = {
  provide: CAMPAIGN_RUNNER,
  useFactory: (
    db: Database,
    store: EventStore,
    projector: CampaignProjector,
    clock: Clock,
    appended: AppendedListeners,
    observe?: AppendObserver,
  ) =>
    new CampaignRunner(db, store, projector, clock, (campaignId, events) => {
      observe?.(campaignId, events);
      appended.publish(campaignId, events);
    }),
  inject: [
    DATABASE,
    EVENT_STORE,
    CampaignProjector,
    CLOCK,
    AppendedListeners,
    { token: APPEND_OBSERVER, optional: true },
  ],
};

/** Fork, rewind, delete (DESIGN §10); each owning module registers its participant at onModuleInit. */
const timelines: Provider = {
  provide: TimelineService,
  useFactory: (db: Database, store: EventStore, projector: CampaignProjector, clock: Clock, on: AppendedListeners) =>
    new TimelineService(db, store, projector, clock, on.publish),
  inject: [DATABASE, EVENT_STORE, CampaignProjector, CLOCK, AppendedListeners],
};

const appended: Provider = {
  provide: AppendedListeners,
  useFactory: () => {
    const logger = new Logger('campaign');
    return new AppendedListeners((err) => logger.error(`a listener of appended events failed: ${String(err)}`));
  },
};

const reader: Provider = {
  provide: CampaignReader,
  useFactory: (db: Database, store: EventStore, projector: CampaignProjector) =>
    new CampaignReader(db, store, projector.cache),
  inject: [DATABASE, EVENT_STORE, CampaignProjector],
};

/**
 * Gives campaigns of older releases their state rows (docs/state.md) before anything reads them: module init
 * ends before the memory worker starts (application bootstrap) and before the server listens, so
 * `/health/ready` is not ready until it is done.
 */
@Injectable()
export class StateRowsBackfill implements OnModuleInit {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CampaignProjector) private readonly projector: CampaignProjector,
  ) {}

  async onModuleInit(): Promise<void> {
    const logger = new Logger('state-rows');
    const n = await this.projector.backfillStateRows(this.db, this.store, (msg) => logger.log(msg));
    if (n) logger.log(`state rows backfilled for ${n} campaigns`);
  }
}

/** The campaign write side (runner, projector, command handlers) and its reader. */
@Global()
@Module({
  providers: [
    {
      // Campaign indexes its messages through the search port, in the append's transaction (§7).
      provide: CampaignProjector,
      useFactory: (index?: SearchIndex) => {
        const projector = new CampaignProjector();
        if (index) projector.addProjection(messageSearch(index));
        return projector;
      },
      inject: [{ token: SEARCH_INDEX, optional: true }],
    },
    appended,
    reader,
    runner,
    StateRowsBackfill,
    timelines,
    ...CommandHandlers,
  ],
  exports: [AppendedListeners, CampaignProjector, CampaignReader, CAMPAIGN_RUNNER, TimelineService],
})
export class CampaignModule {}
