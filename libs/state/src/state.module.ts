import { CampaignProjector, TimelineService } from '@app/campaign';
import { EVENT_STORE, EventStore } from '@app/event-store';
import { AppConfig, Clock, CLOCK } from '@app/common';
import { Database, DATABASE } from '@app/database';
import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { AccountProjection } from './snapshots/account.projection';
import { SnapshotStore } from './snapshots/snapshot.store';
import { SnapshotTransfer } from './snapshots/snapshot.transfer';
import { StateTimeline } from './snapshots/state.timeline';

/** Accounts follow the game stream: the projection rides in the campaign projector's transaction. */
const accounts: Provider = {
  provide: AccountProjection,
  useFactory: (projector: CampaignProjector) => {
    const projection = new AccountProjection();
    projector.addProjection(projection);
    return projection;
  },
  inject: [CampaignProjector],
};

/** Accounts, snapshots and tools in fork, rewind and delete (DESIGN §10). */
const timeline: Provider = {
  provide: StateTimeline,
  useFactory: (store: EventStore, timelines: TimelineService) => {
    const participant = new StateTimeline(store);
    timelines.register(participant);
    return participant;
  },
  inject: [EVENT_STORE, TimelineService],
};

/** Game-state snapshots (agent tools) and the accounts projection. */
@Global()
@Module({})
export class StateModule {
  static forRoot(config: Pick<AppConfig, 'tickSeconds'>): DynamicModule {
    const snapshots: Provider = {
      provide: SnapshotStore,
      useFactory: (db: Database, clock: Clock) => new SnapshotStore(db, clock, config.tickSeconds),
      inject: [DATABASE, CLOCK],
    };
    return {
      module: StateModule,
      providers: [
        accounts,
        snapshots,
        timeline,
        { provide: SnapshotTransfer, useFactory: (db: Database) => new SnapshotTransfer(db), inject: [DATABASE] },
      ],
      exports: [AccountProjection, SnapshotStore, StateTimeline, SnapshotTransfer],
    };
  }
}
