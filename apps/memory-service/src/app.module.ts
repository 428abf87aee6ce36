import { AppConfig } from '@app/common';
import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { SchemaValidationPipe } from './http/schema-validation.pipe';
import { TerminusModule } from '@nestjs/terminus';
import { LoggerModule } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import { MetricsController } from './observability/metrics.controller';
import { CoreModule, CoreOverrides } from './core.module';
import { CampaignsController } from './http/controllers/campaigns.controller';
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

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, overrides: CoreOverrides = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config, overrides),
        TerminusModule.forRoot({ logger: false }),
        LoggerModule.forRoot({
          pinoHttp: [
            {
            level: config.logLevel,
            // The id Fastify gave the request (bootstrap.ts puts it in x-request-id): one id in logs, events and worker logs.
            genReqId: (req) => String(req.headers['x-request-id'] ?? randomUUID()),
            customProps: (req) => ({ correlationId: (req as { id?: unknown }).id }),
            redact: ['req.headers.authorization', 'req.headers["x-api-key"]'],
            transport: process.stdout.isTTY && !overrides.logDestination && config.logLevel !== 'silent' ? { target: 'pino-pretty', options: { singleLine: true } } : undefined,
            },
            (overrides.logDestination ?? process.stdout) as never,
          ],
        }),
      ],
      controllers: [MetricsController, CampaignsController, MessagesController, CommandsController, MemoriesController, HealthController, LoreController, GameStateController, WorldStateController, SearchController, BroadcastsController, StreamController, InspectorController, UsageController],
      providers: [
        { provide: APP_FILTER, useClass: ProblemFilter },
        { provide: APP_PIPE, useClass: SchemaValidationPipe },
        StreamHub,
        WakeStreamsHandler,
      ],
    };
  }
}
