import { AppConfig } from '@app/common';
import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { ResponseCheckInterceptor } from './http/response-check.interceptor';
import { SchemaValidationPipe } from './http/schema-validation.pipe';
import { TerminusModule } from '@nestjs/terminus';
import { MetricsController } from './observability/metrics.controller';
import { CoreModule, CoreOverrides } from './core.module';
import { CampaignsController } from './http/controllers/campaigns.controller';
import { TimelinesController } from './http/controllers/timelines.controller';
import { CommandsController } from './http/controllers/commands.controller';
import { HealthController } from './http/controllers/health.controller';
import { MemoriesController } from './http/controllers/memories.controller';
import { MessagesController } from './http/controllers/messages.controller';
import { LoreController } from './http/controllers/lore.controller';
import { ProblemFilter } from './http/problem.filter';
import { GameStateController } from './http/controllers/game-state.controller';
import { WorldStateController } from './http/controllers/world-state.controller';
import { SearchController } from './http/controllers/search.controller';
import { BroadcastsController } from './http/controllers/broadcasts.controller';
import { StreamController } from './stream/stream.controller';
import { InspectorController } from './stream/inspector.controller';
import { StreamHub, WakeStreamsHandler } from './stream/stream-hub';
import { UsageController } from './http/controllers/usage.controller';
import { RetractionsController } from './http/controllers/retractions.controller';
import { MemoryEditsController } from './http/controllers/memory-edits.controller';
import { CallerController } from './http/controllers/caller.controller';
import { ReadPool } from './reads/read-pool';
import { TransferController } from './transfer/transfer.controller';
import { campaignTransferProvider } from './transfer/campaign-transfer';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, overrides: CoreOverrides = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [CoreModule.forRoot(config, overrides), TerminusModule.forRoot({ logger: false })],
      controllers: [
        MetricsController,
        CampaignsController,
        TimelinesController,
        MessagesController,
        CommandsController,
        MemoriesController,
        HealthController,
        LoreController,
        GameStateController,
        WorldStateController,
        SearchController,
        BroadcastsController,
        CallerController,
        StreamController,
        InspectorController,
        UsageController,
        RetractionsController,
        MemoryEditsController,
        TransferController,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ProblemFilter },
        { provide: APP_PIPE, useClass: SchemaValidationPipe },
        StreamHub,
        WakeStreamsHandler,
        ReadPool,
        campaignTransferProvider,
        ...(overrides.checkResponses ? [{ provide: APP_INTERCEPTOR, useClass: ResponseCheckInterceptor }] : []),
      ],
    };
  }
}
