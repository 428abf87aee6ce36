import {
  AppendedHandler,
  AppendedListeners,
  CampaignEventsAppended,
  CampaignProjector,
  CampaignReader,
  TimelineService,
} from '@app/campaign';
import { AppConfig } from '@app/common';
import {
  CAMPAIGN_OWNERSHIP,
  CampaignOwnership,
  CheckpointStore,
  MemoryWorker,
  SingleProcessOwnership,
} from '@app/memory';
import { BeforeApplicationShutdown, DynamicModule, Global, Inject, Injectable, Logger, Module } from '@nestjs/common';
import { OnApplicationBootstrap, OnApplicationShutdown, Provider } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { DataSource } from 'typeorm';
import { PostgresLeaseOwnership } from './postgres-lease.ownership';
import { ReplicaCoordinator } from './replica-coordinator';
import { ReplicaMetrics } from './replica-metrics';

/** The coordinator of several replicas; null on SQLite (one process). */
export const REPLICA_COORDINATOR = Symbol('REPLICA_COORDINATOR');

type ReplicaConfig = Pick<AppConfig, 'database' | 'replicaId' | 'leaseTtlMs' | 'leasePollMs'>;

/** After each commit: wake every replica's worker (DESIGN §9); the poll covers a lost notification. */
@Injectable()
export class NotifyReplicasHandler extends AppendedHandler {
  private readonly logger = new Logger('replica');
  constructor(
    @Inject(REPLICA_COORDINATOR) private readonly coordinator: ReplicaCoordinator | null,
    @Inject(AppendedListeners) appended: AppendedListeners,
  ) {
    super(appended);
  }
  handle(event: CampaignEventsAppended): void {
    this.coordinator
      ?.notify(event.campaignId)
      .catch((err) => this.logger.warn(`NOTIFY for campaign ${event.campaignId} failed: ${(err as Error).message}`));
  }
}

/**
 * Starts LISTEN and the poll after boot; at shutdown (after the worker stopped and HTTP drained)
 * releases the leases still held and closes the pool.
 */
@Injectable()
export class ReplicaLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('replica');
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(CAMPAIGN_OWNERSHIP) private readonly ownership: CampaignOwnership,
    @Inject(REPLICA_COORDINATOR) private readonly coordinator: ReplicaCoordinator | null,
  ) {}
  async onApplicationBootstrap(): Promise<void> {
    await this.coordinator?.start();
  }
  async beforeApplicationShutdown(): Promise<void> {
    await this.coordinator?.stop();
  }
  async onApplicationShutdown(): Promise<void> {
    if (this.ownership instanceof PostgresLeaseOwnership) {
      await this.ownership.stop();
      this.logger.log('shutdown: leases released');
    }
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    this.logger.log('shutdown: database pool closed');
  }
}

function ownershipProvider(config: ReplicaConfig, replicaId: string, logger: Logger): Provider {
  return {
    provide: CAMPAIGN_OWNERSHIP,
    useFactory: (ds: DataSource, metrics: ReplicaMetrics) => {
      if (config.database.type !== 'postgres') return new SingleProcessOwnership();
      const ownership = new PostgresLeaseOwnership(ds, { replicaId, ttlMs: config.leaseTtlMs }, metrics, (msg) =>
        logger.warn(msg),
      );
      ownership.start();
      return ownership;
    },
    inject: [DataSource, ReplicaMetrics],
  };
}

function coordinatorProvider(config: ReplicaConfig, replicaId: string, logger: Logger): Provider {
  const db = config.database;
  return {
    provide: REPLICA_COORDINATOR,
    useFactory: (
      ds: DataSource,
      worker: MemoryWorker,
      ownership: CampaignOwnership,
      campaigns: CampaignReader,
      checkpoints: CheckpointStore,
    ) => {
      if (!(ownership instanceof PostgresLeaseOwnership) || db.type !== 'postgres') return null;
      const behind = async () => [...(await checkpoints.pending(await campaigns.versions())).keys()];
      const options = { url: db.url, replicaId, pollMs: config.leasePollMs, behind };
      const wake = (id: string) => worker.wake(id);
      const nudge = (id: string) => worker.nudge(id);
      return new ReplicaCoordinator(ds, options, wake, logger, (id) => ownership.takeOver(id), nudge);
    },
    inject: [DataSource, MemoryWorker, CAMPAIGN_OWNERSHIP, CampaignReader, CheckpointStore],
  };
}

/**
 * DESIGN §10 on several replicas: a rewind or delete is told to the others (their state caches and worker claims
 * are stale), and a deleted campaign's lease row goes with it.
 */
function timelineProvider(logger: Logger): Provider {
  return {
    provide: 'REPLICA_TIMELINE',
    useFactory: (
      timelines: TimelineService,
      coordinator: ReplicaCoordinator | null,
      projector: CampaignProjector,
      worker: MemoryWorker,
    ) => {
      if (!coordinator) return null;
      timelines.register({
        copy: async () => undefined,
        rewind: async () => undefined,
        remove: async (m, id) => void (await m.query('DELETE FROM leases WHERE campaign_id = $1', [id])),
      });
      timelines.onChange((c) => {
        if (c.kind === 'forked') return;
        coordinator
          .notify(c.campaignId, c.kind)
          .catch((err) => logger.warn(`NOTIFY ${c.kind} of ${c.campaignId} failed: ${(err as Error).message}`));
      });
      coordinator.onTimeline((id, change) => {
        projector.cache.dropCampaign(id);
        if (change === 'deleted') worker.forget(id);
        else worker.abandon(id);
      });
      return coordinator;
    },
    inject: [TimelineService, REPLICA_COORDINATOR, CampaignProjector, MemoryWorker],
  };
}

/** Ownership, wake-ups and metrics: PostgreSQL leases for several replicas, a no-op on SQLite. */
@Global()
@Module({})
export class ReplicaModule {
  static forRoot(config: ReplicaConfig): DynamicModule {
    const replicaId = config.replicaId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    const mode = config.database.type === 'postgres' ? 'postgres-leases' : 'single-process';
    const logger = new Logger('replica');
    return {
      module: ReplicaModule,
      providers: [
        { provide: ReplicaMetrics, useValue: new ReplicaMetrics(replicaId, mode) },
        ownershipProvider(config, replicaId, logger),
        coordinatorProvider(config, replicaId, logger),
        timelineProvider(logger),
        NotifyReplicasHandler,
        ReplicaLifecycle,
      ],
      exports: [ReplicaMetrics, CAMPAIGN_OWNERSHIP, REPLICA_COORDINATOR],
    };
  }
}
