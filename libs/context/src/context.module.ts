import { CampaignReader } from '@app/campaign';
import { AppConfig, Clock, CLOCK } from '@app/common';
import { CheckpointStore, LayersReader, MemoryReader, WorkerProgress } from '@app/memory';
import { SEARCH_INDEX, SearchIndex } from '@app/search';
import { SnapshotStore } from '@app/state';
import { DynamicModule, Global, Inject, Logger, Module, Provider } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ContextComposer, DEFAULT_RECALL_SHARE } from './context.composer';
import { ContextService, GetContextQuery } from './get-context.query';
import { buildSections, SectionDeps } from './sections';
import { TiktokenCounter, TOKEN_COUNTER, TokenCounter } from './token-counter.port';

@QueryHandler(GetContextQuery)
export class GetContextHandler implements IQueryHandler<GetContextQuery> {
  constructor(@Inject(ContextService) private readonly service: ContextService) {}
  execute(query: GetContextQuery) {
    return this.service.build(query);
  }
}

/**
 * The composer over every section: built by ContextModule, and by each read worker (DESIGN §13) over its own
 * readers.
 */
export function createComposer(deps: SectionDeps, config: AppConfig): ContextComposer {
  return new ContextComposer(
    deps.counter,
    buildSections(deps, config),
    DEFAULT_RECALL_SHARE,
    config.minRecentMessages,
    {
      glossaryMaxTokens: config.glossaryMaxTokens,
    },
  );
}

function composerProvider(config: AppConfig): Provider {
  return {
    provide: ContextComposer,
    useFactory: (
      counter: TokenCounter,
      clock: Clock,
      campaigns: CampaignReader,
      memories: MemoryReader,
      layers: LayersReader,
      snapshots: SnapshotStore,
      index: SearchIndex,
    ) => createComposer({ counter, clock, campaigns, memories, layers, snapshots, index }, config),
    inject: [TOKEN_COUNTER, CLOCK, CampaignReader, MemoryReader, LayersReader, SnapshotStore, SEARCH_INDEX],
  };
}

function serviceProvider(config: AppConfig): Provider {
  const logger = new Logger('context');
  return {
    provide: ContextService,
    useFactory: (
      reader: CampaignReader,
      checkpoints: CheckpointStore,
      progress: WorkerProgress,
      composer: ContextComposer,
    ) =>
      new ContextService(reader, checkpoints, progress, composer, config.contextTokenBudget, (line) =>
        logger.log(`context built ${JSON.stringify(line)}`),
      ),
    inject: [CampaignReader, CheckpointStore, WorkerProgress, ContextComposer],
  };
}

/** The context composer over every section of SECTIONS, the token counter, and GetContextQuery's handler. */
@Global()
@Module({})
export class ContextModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ContextModule,
      providers: [
        { provide: TOKEN_COUNTER, useFactory: (): TokenCounter => new TiktokenCounter() },
        composerProvider(config),
        serviceProvider(config),
        GetContextHandler,
      ],
      exports: [TOKEN_COUNTER, ContextComposer, ContextService],
    };
  }
}
