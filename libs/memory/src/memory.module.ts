import {
  AppendedHandler,
  AppendedListeners,
  CampaignEventsAppended,
  CampaignProjector,
  CampaignReader,
  TimelineService,
} from '@app/campaign';
import { AppConfig } from '@app/common';
import { Database, DATABASE } from '@app/database';
import { EVENT_STORE, EventStore } from '@app/event-store';
import { SEARCH_INDEX, SearchIndex } from '@app/search';
import { Summarizer, SUMMARIZER, UsageLedger } from '@app/summarizer';
import { BeforeApplicationShutdown, DynamicModule, Global, Inject, Injectable, Logger, Module } from '@nestjs/common';
import { OnApplicationBootstrap, Provider } from '@nestjs/common';
import { CheckpointProjection } from './checkpoint/checkpoint.projection';
import { CheckpointStore } from './checkpoint/checkpoint.store';
import { CorrectionsProjection } from './corrections.projection';
import { RetractionProjection } from './retraction.projection';
import { MemoryHistoryReader } from './corrections/memory-history.reader';
import { MemoryPreparerRegistration } from './corrections/memory.preparer';
import { HideGlossaryTermHandler } from './glossary/hide-glossary-term.command';
import { LayersReader } from './layers.reader';
import { MemoryProjector } from './memory.projector';
import { MemoryReader } from './memory.reader';
import { MemoryWorker, WorkerOptions } from './memory.worker';
import { CAMPAIGN_OWNERSHIP, CampaignOwnership } from './ownership/campaign-ownership.port';
import { WorkerProgress } from './progress';
import { MemoryTimeline } from './timelines/memory.timeline';
import { WordingSearch } from './wording.search';

/** Optional: what the app observes of the worker (metrics); without it nothing is counted. */
export const MEMORY_WORKER_HOOKS = Symbol('MEMORY_WORKER_HOOKS');
export type MemoryWorkerHooks = Pick<WorkerOptions, 'onOutcome' | 'onCalls'>;

export interface MemoryModuleOptions {
  /** Write each paid model call ahead of its outcome (remote models; the offline one costs nothing). */
  writeAhead: boolean;
}

type WorkerConfig = Pick<
  AppConfig,
  | 'summaryAttempts'
  | 'summaryTimeoutMs'
  | 'memoryConcurrency'
  | 'summaryIntervalRounds'
  | 'hotRounds'
  | 'rollingSummaryWords'
  | 'maxNewTermsPerRequest'
  | 'maxGlossaryTerms'
>;

/** After each commit that appended events: the worker looks at that campaign again. */
@Injectable()
export class WakeWorkerHandler extends AppendedHandler {
  constructor(
    @Inject(MemoryWorker) private readonly worker: MemoryWorker,
    @Inject(AppendedListeners) appended: AppendedListeners,
  ) {
    super(appended);
  }
  handle(event: CampaignEventsAppended): void {
    this.worker.wake(event.campaignId);
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

/** Structured worker logs: the context (campaign, trigger version, correlation id…) become JSON fields. */
const workerLogger = (logger: Logger) => ({
  log: (msg: string, ctx?: Record<string, unknown>) => logger.log({ msg, ...ctx }),
  warn: (msg: string, ctx?: Record<string, unknown>) => logger.warn({ msg, ...ctx }),
  error: (msg: string, ctx?: Record<string, unknown>) => logger.error({ msg, ...ctx }),
});

function workerOptions(
  config: WorkerConfig,
  options: MemoryModuleOptions,
  ledger: UsageLedger,
  hooks?: MemoryWorkerHooks,
): WorkerOptions {
  return {
    attempts: config.summaryAttempts,
    timeoutMs: config.summaryTimeoutMs,
    concurrency: config.memoryConcurrency,
    summaryIntervalRounds: config.summaryIntervalRounds,
    hotRounds: config.hotRounds,
    rollingSummaryWords: config.rollingSummaryWords,
    maxNewTermsPerRequest: config.maxNewTermsPerRequest,
    maxGlossaryTerms: config.maxGlossaryTerms,
    onOutcome: hooks?.onOutcome,
    usage: ledger,
    writeAhead: options.writeAhead,
    onCalls: hooks?.onCalls,
  };
}

function workerProvider(config: WorkerConfig, options: MemoryModuleOptions): Provider {
  return {
    provide: MemoryWorker,
    useFactory: (
      db: Database,
      store: EventStore,
      reader: CampaignReader,
      projector: MemoryProjector,
      summarizer: Summarizer,
      progress: WorkerProgress,
      ownership: CampaignOwnership,
      ledger: UsageLedger,
      hooks?: MemoryWorkerHooks,
    ) => {
      const logger = workerLogger(new Logger('memory-worker'));
      const opts = workerOptions(config, options, ledger, hooks);
      return new MemoryWorker(db, store, reader, projector, summarizer, progress, logger, opts, ownership);
    },
    inject: [
      DATABASE,
      EVENT_STORE,
      CampaignReader,
      MemoryProjector,
      SUMMARIZER,
      WorkerProgress,
      CAMPAIGN_OWNERSHIP,
      UsageLedger,
      { token: MEMORY_WORKER_HOOKS, optional: true },
    ],
  };
}

/** §10: retractions and corrections reach memory's tables in the command's own transaction. */
const gameEventProjections: Provider[] = [
  {
    provide: RetractionProjection,
    useFactory: (campaigns: CampaignProjector) => {
      const projection = new RetractionProjection();
      campaigns.addProjection(projection);
      return projection;
    },
    inject: [CampaignProjector],
  },
  {
    provide: CorrectionsProjection,
    useFactory: (campaigns: CampaignProjector, memories: MemoryProjector) => {
      const projection = new CorrectionsProjection(memories);
      campaigns.addProjection(projection);
      return projection;
    },
    inject: [CampaignProjector, MemoryProjector],
  },
];

/** Memory's rows in fork, rewind and delete (DESIGN §10), registered like the indexers. */
const timelineProvider: Provider = {
  provide: MemoryTimeline,
  useFactory: (store: EventStore, worker: MemoryWorker, ledger: UsageLedger, timelines: TimelineService) => {
    const participant = new MemoryTimeline(store, worker, ledger);
    participant.attach(timelines);
    return participant;
  },
  inject: [EVENT_STORE, MemoryWorker, UsageLedger, TimelineService],
};

/** Memory's readers, each over the database. */
const readerProviders: Provider[] = [
  { provide: MemoryReader, useFactory: (db: Database) => new MemoryReader(db), inject: [DATABASE] },
  { provide: CheckpointStore, useFactory: (db: Database) => new CheckpointStore(db), inject: [DATABASE] },
  {
    provide: LayersReader,
    useFactory: (db: Database, reader: CampaignReader) => new LayersReader(db, reader),
    inject: [DATABASE, CampaignReader],
  },
  { provide: MemoryHistoryReader, useFactory: (db: Database) => new MemoryHistoryReader(db), inject: [DATABASE] },
];

/** What memory registers with others: its search indexer, its checkpoint projection. */
const registrationProviders: Provider[] = [
  {
    // Memory indexes its wordings through the search port, in the projection's transaction (§7).
    provide: MemoryProjector,
    useFactory: (index?: SearchIndex) => {
      const projector = new MemoryProjector();
      if (index) projector.addIndexer(new WordingSearch(index));
      return projector;
    },
    inject: [{ token: SEARCH_INDEX, optional: true }],
  },
  {
    // §10: the checkpoint row is created with the campaign, in its transaction.
    provide: CheckpointProjection,
    useFactory: (projector: CampaignProjector) => {
      const projection = new CheckpointProjection();
      projector.addProjection(projection);
      return projection;
    },
    inject: [CampaignProjector],
  },
];

/**
 * The memory side: projector, readers, the worker (woken on each append, started after boot, stopped before the
 * database closes) and the glossary command. The worker's claim on a campaign (CAMPAIGN_OWNERSHIP) and the
 * summarizer come from outside: ReplicaModule and the app.
 */
@Global()
@Module({})
export class MemoryModule {
  static forRoot(config: WorkerConfig, options: MemoryModuleOptions): DynamicModule {
    return {
      module: MemoryModule,
      providers: [
        ...readerProviders,
        ...registrationProviders,
        { provide: WorkerProgress, useValue: new WorkerProgress() },
        workerProvider(config, options),
        ...gameEventProjections,
        timelineProvider,
        HideGlossaryTermHandler,
        MemoryPreparerRegistration,
        WakeWorkerHandler,
        WorkerLifecycle,
      ],
      exports: [
        MemoryProjector,
        MemoryReader,
        CheckpointStore,
        LayersReader,
        WorkerProgress,
        MemoryWorker,
        MemoryTimeline,
        MemoryHistoryReader,
      ],
    };
  }
}
