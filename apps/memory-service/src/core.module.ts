import { CampaignEventsAppended, CampaignProjector, CampaignReader, CampaignRecord, CAMPAIGN_RUNNER, CampaignRunner, CommandHandlers, IdempotencyRecord, MessageRecord, ToolCallRecord } from '@app/campaign';
import { APP_CONFIG, AppConfig, Clock, CLOCK, SystemClock } from '@app/common';
import { ContextComposer, ContextService, GetContextQuery, LocationSection, NpcSection, TiktokenCounter, TOKEN_COUNTER, TokenCounter, WorldSection } from '@app/context';
import { createDataSource, Database, DATABASE, EVENT_STORE, EventRecord, EventStore, runMigrations, TypeOrmEventStore } from '@app/event-store';
import { CAMPAIGN_OWNERSHIP, CampaignOwnership, CursorRecord, MemoryProjector, MemoryReader, MemoryRecord, MemoryWorker, WorkerProgress } from '@app/memory';
import { ReplicaMetrics } from '@app/replica';
import { createSummarizer, Summarizer, SUMMARIZER } from '@app/summarizer';
import { BeforeApplicationShutdown, DynamicModule, Inject, Injectable, Logger, Module, OnApplicationBootstrap, Provider } from '@nestjs/common';
import { CqrsModule, EventBus, EventsHandler, IEventHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from './migrations';
import { REPLICA_COORDINATOR, replicaProviders } from './replica.providers';

export const ENTITIES = [EventRecord, CampaignRecord, MessageRecord, ToolCallRecord, IdempotencyRecord, MemoryRecord, CursorRecord];

export interface CoreOverrides {
  clock?: Clock;
  summarizer?: Summarizer;
}

@EventsHandler(CampaignEventsAppended)
export class WakeWorkerHandler implements IEventHandler<CampaignEventsAppended> {
  constructor(@Inject(MemoryWorker) private readonly worker: MemoryWorker) {}
  handle(event: CampaignEventsAppended): void {
    this.worker.wake(event.campaignId);
  }
}

@QueryHandler(GetContextQuery)
export class GetContextHandler implements IQueryHandler<GetContextQuery> {
  constructor(@Inject(ContextService) private readonly service: ContextService) {}
  execute(query: GetContextQuery) {
    return this.service.build(query);
  }
}

/** Starts the worker after boot (catch-up from checkpoints) and stops it before the database closes. */
@Injectable()
export class WorkerLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(@Inject(MemoryWorker) private readonly worker: MemoryWorker) {}
  async onApplicationBootstrap(): Promise<void> {
    await this.worker.catchUp();
  }
  async beforeApplicationShutdown(): Promise<void> {
    await this.worker.stop();
    new Logger('memory-worker').log('shutdown: worker stopped, unfinished summaries abandoned');
  }
}

const workerLogger = (logger: Logger) => ({
  log: (msg: string, ctx?: Record<string, unknown>) => logger.log(`${msg} ${ctx ? JSON.stringify(ctx) : ''}`),
  warn: (msg: string, ctx?: Record<string, unknown>) => logger.warn(`${msg} ${ctx ? JSON.stringify(ctx) : ''}`),
  error: (msg: string, ctx?: Record<string, unknown>) => logger.error(`${msg} ${ctx ? JSON.stringify(ctx) : ''}`),
});

/** Wires the libraries' plain classes into Nest: ports get their adapters here and nowhere else. */
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig, overrides: CoreOverrides = {}): DynamicModule {
    const providers: Provider[] = [
      { provide: APP_CONFIG, useValue: config },
      { provide: CLOCK, useValue: overrides.clock ?? new SystemClock() },
      {
        provide: DataSource,
        useFactory: async () => {
          const ds = createDataSource({ database: config.database, entities: ENTITIES, migrations: MIGRATIONS });
          await ds.initialize();
          await runMigrations(ds);
          return ds;
        },
      },
      { provide: DATABASE, useFactory: (ds: DataSource) => new Database(ds), inject: [DataSource] },
      { provide: EVENT_STORE, useFactory: (db: Database) => new TypeOrmEventStore(db), inject: [DATABASE] },
      { provide: CampaignProjector, useFactory: () => new CampaignProjector() },
      { provide: CampaignReader, useFactory: (db: Database, store: EventStore) => new CampaignReader(db, store), inject: [DATABASE, EVENT_STORE] },
      {
        provide: CAMPAIGN_RUNNER,
        useFactory: (db: Database, store: EventStore, projector: CampaignProjector, clock: Clock, bus: EventBus) =>
          new CampaignRunner(db, store, projector, clock, (campaignId, events) => bus.publish(new CampaignEventsAppended(campaignId, events[events.length - 1].version))),
        inject: [DATABASE, EVENT_STORE, CampaignProjector, CLOCK, EventBus],
      },
      { provide: MemoryProjector, useFactory: () => new MemoryProjector() },
      { provide: MemoryReader, useFactory: (db: Database) => new MemoryReader(db), inject: [DATABASE] },
      { provide: WorkerProgress, useValue: new WorkerProgress() },
      {
        provide: SUMMARIZER,
        useFactory: () =>
          overrides.summarizer ??
          createSummarizer({ summarizer: config.summarizer, anthropicApiKey: config.anthropicApiKey, anthropicBaseUrl: config.anthropicBaseUrl, anthropicModel: config.anthropicModel }),
      },
      {
        provide: MemoryWorker,
        useFactory: (db: Database, store: EventStore, reader: CampaignReader, projector: MemoryProjector, summarizer: Summarizer, progress: WorkerProgress, ownership: CampaignOwnership) =>
          new MemoryWorker(
            db,
            store,
            reader,
            projector,
            summarizer,
            progress,
            workerLogger(new Logger('memory-worker')),
            {
              attempts: config.summaryAttempts,
              timeoutMs: config.summaryTimeoutMs,
              concurrency: config.memoryConcurrency,
            },
            ownership,
          ),
        inject: [DATABASE, EVENT_STORE, CampaignReader, MemoryProjector, SUMMARIZER, WorkerProgress, CAMPAIGN_OWNERSHIP],
      },
      { provide: TOKEN_COUNTER, useFactory: () => new TiktokenCounter() },
      {
        provide: ContextComposer,
        useFactory: (counter: TokenCounter, memories: MemoryReader) => new ContextComposer(counter, [new LocationSection(memories), new NpcSection(memories), new WorldSection(memories)]),
        inject: [TOKEN_COUNTER, MemoryReader],
      },
      {
        provide: ContextService,
        useFactory: (reader: CampaignReader, progress: WorkerProgress, composer: ContextComposer) => new ContextService(reader, progress, composer, config.contextTokenBudget),
        inject: [CampaignReader, WorkerProgress, ContextComposer],
      },
      ...CommandHandlers,
      WakeWorkerHandler,
      GetContextHandler,
      WorkerLifecycle,
      ...replicaProviders(config),
    ];
    return {
      module: CoreModule,
      imports: [CqrsModule.forRoot()],
      providers,
      exports: [APP_CONFIG, CLOCK, DataSource, DATABASE, EVENT_STORE, CampaignReader, MemoryReader, MemoryWorker, WorkerProgress, ContextComposer, TOKEN_COUNTER, SUMMARIZER, CqrsModule, ReplicaMetrics, REPLICA_COORDINATOR],
      global: true,
    };
  }
}
