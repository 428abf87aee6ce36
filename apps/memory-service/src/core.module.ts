import { APPEND_OBSERVER, AppendObserver, CampaignModule, CampaignReader, CampaignRecord } from '@app/campaign';
import { CampaignStateRowRecord, CampaignTimelineRecord } from '@app/campaign';
import { MessageRecord, MessageWitnessRecord, ToolCallRecord } from '@app/campaign';
import { APP_CONFIG, AppConfig, Clock, CLOCK, SystemClock } from '@app/common';
import { ContextModule } from '@app/context';
import { Database, DATABASE, DatabaseModule, IdempotencyRecord } from '@app/database';
import { EventRecord, EventStoreModule } from '@app/event-store';
import { CheckpointStore, CursorRecord, GlossaryTermRecord, MEMORY_WORKER_HOOKS, MemoryModule } from '@app/memory';
import { MemoryCheckpointRecord, MemoryHistoryRecord, MemoryRecord } from '@app/memory';
import { MemoryWitnessRecord, MemoryWorkerHooks, RollingSummaryRecord } from '@app/memory';
import { ReplicaMetrics, ReplicaModule } from '@app/replica';
import { BroadcastRecord, BroadcastsModule } from '@app/broadcasts';
import { RecallModule } from '@app/recall';
import { SearchModule } from '@app/search';
import { AccountRecord, GameStateSnapshotRecord, SnapshotToolRecord, StateModule } from '@app/state';
import { costOf, createSummarizer, LedgerEntry, Summarizer, SUMMARIZER, UsageLedger } from '@app/summarizer';
import { DynamicModule, Module, Provider } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { MIGRATIONS } from './migrations';
import { MeteredSummarizer } from './observability/metered.summarizer';
import { Metrics } from './observability/metrics';

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
  CampaignStateRowRecord,
  CampaignTimelineRecord,
  MemoryHistoryRecord,
];

export interface CoreOverrides {
  clock?: Clock;
  summarizer?: Summarizer;
  /** Where JSON logs go (tests capture them); default stdout. */
  logDestination?: { write(line: string): void };
  /** Check every JSON answer against its documented schema (the e2e harness; see ResponseCheckInterceptor). */
  checkResponses?: boolean;
}

/** §12: the ledger's durable rows as Prometheus counters (no campaign label: bounded cardinality). */
function countCalls(metrics: Metrics, config: AppConfig, entries: LedgerEntry[]): void {
  for (const e of entries) {
    metrics.modelCalls.inc({ scope: e.scope, model: e.model, outcome: e.outcome });
    const kinds: Array<[string, number]> = [
      ['input', e.inputTokens],
      ['output', e.outputTokens],
      ['cache_read', e.cacheReadTokens],
      ['cache_write', e.cacheWriteTokens],
    ];
    for (const [kind, n] of kinds) if (n > 0) metrics.modelTokens.inc({ scope: e.scope, model: e.model, kind }, n);
    const price = config.modelPrices[e.model];
    if (price) metrics.modelCost.inc({ scope: e.scope, model: e.model }, costOf(e, price));
  }
}

/** The app's own providers: configuration, clock, metrics, the metered summarizer and what metrics observe. */
function appProviders(config: AppConfig, overrides: CoreOverrides): Provider[] {
  const summarizer = (metrics: Metrics) =>
    new MeteredSummarizer(overrides.summarizer ?? createSummarizer(config), metrics);
  const appended =
    (metrics: Metrics): AppendObserver =>
    (_campaignId, events) => {
      for (const e of events) metrics.eventsAppended.inc({ type: e.type });
    };
  const workerHooks = (metrics: Metrics): MemoryWorkerHooks => ({
    onOutcome: (outcome, scope) =>
      (outcome === 'recorded' ? metrics.memoriesRecorded : metrics.memoriesSkipped).inc({ scope }),
    onCalls: (entries) => countCalls(metrics, config, entries),
  });
  return [
    { provide: APP_CONFIG, useValue: config },
    { provide: CLOCK, useValue: overrides.clock ?? new SystemClock() },
    {
      provide: Metrics,
      useFactory: (replica: ReplicaMetrics, campaigns: CampaignReader, checkpoints: CheckpointStore) =>
        new Metrics(replica, async () => checkpoints.lag(await campaigns.versions())),
      inject: [ReplicaMetrics, CampaignReader, CheckpointStore],
    },
    { provide: UsageLedger, useFactory: (db: Database) => new UsageLedger(db), inject: [DATABASE] },
    { provide: SUMMARIZER, useFactory: summarizer, inject: [Metrics] },
    { provide: APPEND_OBSERVER, useFactory: appended, inject: [Metrics] },
    { provide: MEMORY_WORKER_HOOKS, useFactory: workerHooks, inject: [Metrics] },
  ];
}

/**
 * The service: one Nest module per lib (each registers its own providers, handlers and lifecycle) plus the app's
 * configuration and metrics. The order is the lifecycle order: boot hooks run top to bottom, shutdown hooks bottom
 * to top (the coordinator stops, then the worker, then the leases go and the database closes).
 */
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig, overrides: CoreOverrides = {}): DynamicModule {
    // A remote model is paid per call: write each ahead of its outcome (the offline one costs nothing).
    const writeAhead = !overrides.summarizer && config.summarizer !== 'local';
    return {
      module: CoreModule,
      imports: [
        CqrsModule.forRoot(),
        DatabaseModule.forRoot({ database: config.database, entities: ENTITIES, migrations: MIGRATIONS }),
        EventStoreModule,
        SearchModule,
        CampaignModule,
        StateModule.forRoot(config),
        MemoryModule.forRoot(config, { writeAhead }),
        RecallModule,
        BroadcastsModule,
        ContextModule.forRoot(config),
        ReplicaModule.forRoot(config),
      ],
      providers: appProviders(config, overrides),
      exports: [APP_CONFIG, CLOCK, Metrics, UsageLedger, SUMMARIZER, APPEND_OBSERVER, MEMORY_WORKER_HOOKS, CqrsModule],
      global: true,
    };
  }
}
