import { CampaignProjector } from '@app/campaign';
import { AppConfig, Clock, CLOCK } from '@app/common';
import { Database, DATABASE } from '@app/database';
import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { AccountProjection } from './snapshots/account.projection';
import { SnapshotStore } from './snapshots/snapshot.store';

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
    return { module: StateModule, providers: [accounts, snapshots], exports: [AccountProjection, SnapshotStore] };
  }
}
