import { CampaignEventsAppended, CampaignProjector, CampaignReader, CampaignRecord, CAMPAIGN_RUNNER, CampaignRunner, CommandHandlers, MessageRecord, ToolCallRecord } from '@app/campaign';
import { APP_CONFIG, AppConfig, Clock, CLOCK, SystemClock } from '@app/common';
import { ContextComposer, ContextService, DigestSection, GetContextQuery, HudSection, LocationSection, NpcSection, StateSection, TiktokenCounter, TOKEN_COUNTER, TokenCounter, WorldSection } from '@app/context';
import { BibleSection, DEFAULT_RECALL_POOL, DEFAULT_RECALL_SHARE, GlossarySection, PreviouslySection, RecallSection, RecentMessagesReader, RecentSection, SceneSection } from '@app/context';
import { EVENT_STORE, EventRecord, EventStore, TypeOrmEventStore } from '@app/event-store';
import { createDataSource, Database, DATABASE, IdempotencyRecord, runMigrations } from '@app/database';
import { CAMPAIGN_OWNERSHIP, CampaignOwnership, CheckpointStore, CursorRecord, MemoryCheckpointRecord, MemoryProjector, MemoryReader, MemoryRecord, MemoryWorker, WorkerProgress } from '@app/memory';
import { GlossaryTermRecord, HideGlossaryTermHandler, LayersReader, MemoryWitnessRecord, RollingSummaryRecord } from '@app/memory';
import { MessageWitnessRecord } from '@app/campaign';
import { ReplicaMetrics } from '@app/replica';
import { BroadcastRecord, BroadcastService, createSearchIndex, SEARCH_INDEX, SearchIndex, SearchIndexer, SearchService } from '@app/search';
import { costOf, createSummarizer, LedgerEntry, Summarizer, SUMMARIZER, UsageLedger } from '@app/summarizer';
import { AccountProjection, AccountRecord, GameStateSnapshotRecord, SnapshotStore, SnapshotToolRecord } from '@app/state';
import { BeforeApplicationShutdown, DynamicModule, Inject, Injectable, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown, Provider } from '@nestjs/common';
import { CqrsModule, EventBus, EventsHandler, IEventHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from './migrations';
import { MeteredSummarizer } from './observability/metered.summarizer';
import { Metrics } from './observability/metrics';
import { REPLICA_COORDINATOR, replicaProviders } from './replica.providers';

export const ENTITIES = [
  EventRecord,
  CampaignRecord,
  MessageRecord,
  ToolCallRecord,
  IdempotencyRecord,
  MemoryRecord,
  CursorRecord,
  MemoryCheckpointRecord,
  MessageWitnessRecord,
  MemoryWitnessRecord,
  GlossaryTermRecord,
  RollingSummaryRecord,
  GameStateSnapshotRecord,
  SnapshotToolRecord,
  AccountRecord,
  BroadcastRecord,
];

export interface CoreOverrides {
  clock?: Clock;
  summarizer?: Summarizer;
  /** Where JSON logs go (tests capture them); default stdout. */
  logDestination?: { write(line: string): void };
  /** Check every JSON answer against its documented schema (the e2e harness; see ResponseCheckInterceptor). */
  checkResponses?: boolean;
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

/** Closes the database after the worker stopped, so a restart (or another process) finds a clean file. */
@Injectable()
export class DatabaseLifecycle implements OnApplicationShutdown {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}
  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

/** Structured worker logs: the context (campaign, trigger version, correlation id…) become JSON fields. */
const workerLogger = (logger: Logger) => ({
  log: (msg: string, ctx?: Record<string, unknown>) => logger.log({ msg, ...ctx }),
  warn: (msg: string, ctx?: Record<string, unknown>) => logger.warn({ msg, ...ctx }),
  error: (msg: string, ctx?: Record<string, unknown>) => logger.error({ msg, ...ctx }),
});

const contextLogger = new Logger('context');

/** §12: the ledger's durable rows as Prometheus counters (no campaign label: bounded cardinality). */
function countCalls(metrics: Metrics, config: AppConfig, entries: LedgerEntry[]): void {
  for (const e of entries) {
    metrics.modelCalls.inc({ scope: e.scope, model: e.model, outcome: e.outcome });
    const kinds: Array<[string, number]> = [['input', e.inputTokens], ['output', e.outputTokens], ['cache_read', e.cacheReadTokens], ['cache_write', e.cacheWriteTokens]];
    for (const [kind, n] of kinds) if (n > 0) metrics.modelTokens.inc({ scope: e.scope, model: e.model, kind }, n);
    const price = config.modelPrices[e.model];
    if (price) metrics.modelCost.inc({ scope: e.scope, model: e.model }, costOf(e, price));
  }
}

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
      {
        provide: AccountProjection,
        useFactory: (projector: CampaignProjector) => {
          const projection = new AccountProjection();
          projector.addProjection(projection);
          return projection;
        },
        inject: [CampaignProjector],
      },
      { provide: SnapshotStore, useFactory: (db: Database, clock: Clock) => new SnapshotStore(db, clock, config.tickSeconds), inject: [DATABASE, CLOCK] },
      {
        provide: CampaignReader,
        useFactory: (db: Database, store: EventStore, projector: CampaignProjector) => new CampaignReader(db, store, projector.cache),
        inject: [DATABASE, EVENT_STORE, CampaignProjector],
      },
      {
        provide: CAMPAIGN_RUNNER,
        useFactory: (db: Database, store: EventStore, projector: CampaignProjector, clock: Clock, bus: EventBus, metrics: Metrics) =>
          new CampaignRunner(db, store, projector, clock, (campaignId, events) => {
            for (const e of events) metrics.eventsAppended.inc({ type: e.type });
            bus.publish(new CampaignEventsAppended(campaignId, events[events.length - 1].version));
          }),
        inject: [DATABASE, EVENT_STORE, CampaignProjector, CLOCK, EventBus, Metrics],
      },
      { provide: MemoryProjector, useFactory: () => new MemoryProjector() },
      { provide: MemoryReader, useFactory: (db: Database) => new MemoryReader(db), inject: [DATABASE] },
      { provide: CheckpointStore, useFactory: (db: Database) => new CheckpointStore(db), inject: [DATABASE] },
      { provide: LayersReader, useFactory: (db: Database) => new LayersReader(db), inject: [DATABASE] },
      { provide: WorkerProgress, useValue: new WorkerProgress() },
      { provide: UsageLedger, useFactory: (db: Database) => new UsageLedger(db), inject: [DATABASE] },
      {
        provide: Metrics,
        useFactory: (replica: ReplicaMetrics, campaigns: CampaignReader, checkpoints: CheckpointStore) =>
          new Metrics(replica, async () => checkpoints.lag(await campaigns.versions())),
        inject: [ReplicaMetrics, CampaignReader, CheckpointStore],
      },
      {
        provide: SUMMARIZER,
        useFactory: (metrics: Metrics) =>
          new MeteredSummarizer(
            overrides.summarizer ??
              createSummarizer({
                summarizer: config.summarizer,
                anthropicApiKey: config.anthropicApiKey,
                anthropicBaseUrl: config.anthropicBaseUrl,
                anthropicModel: config.anthropicModel,
                openaiBaseUrl: config.openaiBaseUrl,
                openaiModel: config.openaiModel,
                openaiApiKey: config.openaiApiKey,
              }),
            metrics,
          ),
        inject: [Metrics],
      },
      {
        provide: MemoryWorker,
        useFactory: (db: Database, store: EventStore, reader: CampaignReader, projector: MemoryProjector, summarizer: Summarizer, progress: WorkerProgress, metrics: Metrics, ownership: CampaignOwnership, ledger: UsageLedger) =>
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
              summaryIntervalRounds: config.summaryIntervalRounds,
              hotRounds: config.hotRounds,
              rollingSummaryWords: config.rollingSummaryWords,
              onOutcome: (outcome, scope) => (outcome === 'recorded' ? metrics.memoriesRecorded : metrics.memoriesSkipped).inc({ scope }),
              usage: ledger,
              // A remote model is paid per call: write each ahead of its outcome (the offline one costs nothing).
              writeAhead: !overrides.summarizer && config.summarizer !== 'local',
              onCalls: (entries) => countCalls(metrics, config, entries),
            },
            ownership,
          ),
        inject: [DATABASE, EVENT_STORE, CampaignReader, MemoryProjector, SUMMARIZER, WorkerProgress, Metrics, CAMPAIGN_OWNERSHIP, UsageLedger],
      },
      { provide: TOKEN_COUNTER, useFactory: () => new TiktokenCounter() },
      {
        provide: RecentSection,
        useFactory: (db: Database, counter: TokenCounter) => new RecentSection(new RecentMessagesReader(db), counter, { recentMessages: config.contextRecentMessages, hotRounds: config.hotRounds }),
        inject: [DATABASE, TOKEN_COUNTER],
      },
      {
        provide: ContextComposer,
        useFactory: (counter: TokenCounter, memories: MemoryReader, snapshots: SnapshotStore, clock: Clock, layers: LayersReader, recent: RecentSection, index: SearchIndex, campaigns: CampaignReader) =>
          new ContextComposer(counter, [
            new LocationSection(memories),
            new NpcSection(memories),
            new WorldSection(memories),
            new StateSection(snapshots, counter, clock, { tickSeconds: config.tickSeconds, maxTokens: config.stateMaxTokens }),
            new DigestSection(counter, clock, config.digestMaxTokens),
            new HudSection(counter, config.hudMaxTokens),
            new SceneSection(counter, config.sceneMaxTokens),
            new BibleSection(),
            new GlossarySection(layers),
            new PreviouslySection(layers),
            recent,
            new RecallSection(index, campaigns, memories, layers, { limit: config.recallLimit, pool: DEFAULT_RECALL_POOL }),
          ], DEFAULT_RECALL_SHARE, config.minRecentMessages),
        inject: [TOKEN_COUNTER, MemoryReader, SnapshotStore, CLOCK, LayersReader, RecentSection, SEARCH_INDEX, CampaignReader],
      },
      {
        provide: ContextService,
        useFactory: (reader: CampaignReader, checkpoints: CheckpointStore, progress: WorkerProgress, composer: ContextComposer) =>
          new ContextService(reader, checkpoints, progress, composer, config.contextTokenBudget, (line) => contextLogger.log(`context built ${JSON.stringify(line)}`)),
        inject: [CampaignReader, CheckpointStore, WorkerProgress, ContextComposer],
      },
      { provide: SEARCH_INDEX, useFactory: (db: Database) => createSearchIndex(db), inject: [DATABASE] },
      {
        // Index rows commit in the projections' own transactions (DESIGN §7).
        provide: SearchIndexer,
        useFactory: (index: SearchIndex, campaigns: CampaignProjector, memories: MemoryProjector) => {
          const indexer = new SearchIndexer(index);
          campaigns.addIndexer(indexer);
          memories.addIndexer(indexer);
          return indexer;
        },
        inject: [SEARCH_INDEX, CampaignProjector, MemoryProjector],
      },
      { provide: SearchService, useFactory: (reader: CampaignReader, index: SearchIndex) => new SearchService(reader, index), inject: [CampaignReader, SEARCH_INDEX] },
      {
        provide: BroadcastService,
        useFactory: (db: Database, store: EventStore, index: SearchIndex, clock: Clock) => new BroadcastService(db, store, index, clock),
        inject: [DATABASE, EVENT_STORE, SEARCH_INDEX, CLOCK],
      },
      ...CommandHandlers,
      HideGlossaryTermHandler,
      WakeWorkerHandler,
      GetContextHandler,
      WorkerLifecycle,
      DatabaseLifecycle,
      ...replicaProviders(config),
    ];
    return {
      module: CoreModule,
      imports: [CqrsModule.forRoot()],
      providers,
      exports: [Metrics, UsageLedger, APP_CONFIG, CLOCK, DataSource, DATABASE, EVENT_STORE, CampaignReader, MemoryReader, CheckpointStore, MemoryWorker, WorkerProgress, ContextComposer, TOKEN_COUNTER, SUMMARIZER, CqrsModule, SnapshotStore, LayersReader, SEARCH_INDEX, SearchService, BroadcastService, ReplicaMetrics, REPLICA_COORDINATOR],
      global: true,
    };
  }
}
