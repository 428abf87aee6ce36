import { AppConfig } from '@app/common';
import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { CoreModule, CoreOverrides } from './core.module';
import { CampaignsController } from './http/controllers/campaigns.controller';
import { CommandsController } from './http/controllers/commands.controller';
import { HealthController } from './http/controllers/health.controller';
import { MemoriesController } from './http/controllers/memories.controller';
import { MessagesController } from './http/controllers/messages.controller';
import { MetricsController } from './http/controllers/metrics.controller';
import { ProblemFilter } from './http/problem.filter';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, overrides: CoreOverrides = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [CoreModule.forRoot(config, overrides)],
      controllers: [CampaignsController, MessagesController, CommandsController, MemoriesController, HealthController, MetricsController],
      providers: [{ provide: APP_FILTER, useClass: ProblemFilter }],
    };
  }
}
