import { CampaignEventsAppended, CampaignReader } from '@app/campaign';
import { AppConfig } from '@app/common';
import { CAMPAIGN_OWNERSHIP, CampaignOwnership, CheckpointStore, MemoryWorker, SingleProcessOwnership } from '@app/memory';
import { PostgresLeaseOwnership, ReplicaCoordinator, ReplicaMetrics } from '@app/replica';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Provider } from '@nestjs/common';
import { EventsHandler, IEventHandler } from '@nestjs/cqrs';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { DataSource } from 'typeorm';

/** The coordinator of several replicas; null on SQLite (one process). */
export const REPLICA_COORDINATOR = Symbol('REPLICA_COORDINATOR');

/** After each commit: wake every replica's worker (DESIGN §9); the poll covers a lost notification. */
@EventsHandler(CampaignEventsAppended)
export class NotifyReplicasHandler implements IEventHandler<CampaignEventsAppended> {
  private readonly logger = new Logger('replica');
  constructor(@Inject(REPLICA_COORDINATOR) private readonly coordinator: ReplicaCoordinator | null) {}
  handle(event: CampaignEventsAppended): void {
    this.coordinator?.notify(event.campaignId).catch((err) => this.logger.warn(`NOTIFY for campaign ${event.campaignId} failed: ${(err as Error).message}`));
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

/** Ownership, wake-ups and metrics: PostgreSQL leases for several replicas, a no-op on SQLite. */
export function replicaProviders(config: AppConfig): Provider[] {
  const db = config.database;
  const replicaId = config.replicaId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const logger = new Logger('replica');
  return [
    { provide: ReplicaMetrics, useValue: new ReplicaMetrics(replicaId, db.type === 'postgres' ? 'postgres-leases' : 'single-process') },
    {
      provide: CAMPAIGN_OWNERSHIP,
      useFactory: (ds: DataSource, metrics: ReplicaMetrics) => {
        if (db.type !== 'postgres') return new SingleProcessOwnership();
        const ownership = new PostgresLeaseOwnership(ds, { replicaId, ttlMs: config.leaseTtlMs }, metrics, (msg) => logger.warn(msg));
        ownership.start();
        return ownership;
      },
      inject: [DataSource, ReplicaMetrics],
    },
    {
      provide: REPLICA_COORDINATOR,
      useFactory: (ds: DataSource, worker: MemoryWorker, ownership: CampaignOwnership, campaigns: CampaignReader, checkpoints: CheckpointStore) => {
        if (!(ownership instanceof PostgresLeaseOwnership) || db.type !== 'postgres') return null;
        const behind = async () => [...(await checkpoints.pending(await campaigns.versions())).keys()];
        const options = { url: db.url, replicaId, pollMs: config.leasePollMs, behind };
        return new ReplicaCoordinator(ds, options, (id) => worker.wake(id), logger, (id) => ownership.takeOver(id), (id) => worker.nudge(id));
      },
      inject: [DataSource, MemoryWorker, CAMPAIGN_OWNERSHIP, CampaignReader, CheckpointStore],
    },
    NotifyReplicasHandler,
    ReplicaLifecycle,
  ];
}
