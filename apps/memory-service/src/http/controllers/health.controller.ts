import { CampaignReader } from '@app/campaign';
import { MemoryWorker } from '@app/memory';
import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';

/** Liveness (`/health`, with a database check) and readiness (`/health/ready`: database, worker, lag). */
@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(
    @Inject(HealthCheckService) private readonly health: HealthCheckService,
    @Inject(HealthIndicatorService) private readonly indicators: HealthIndicatorService,
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(MemoryWorker) private readonly worker: MemoryWorker,
    @Inject(CampaignReader) private readonly campaigns: CampaignReader,
  ) {}

  private async database() {
    const check = this.indicators.check('database');
    try {
      await this.dataSource.query('SELECT 1');
      return check.up({ type: this.dataSource.options.type });
    } catch (err) {
      return check.down({ message: (err as Error).message });
    }
  }

  @Get()
  @HealthCheck()
  @ApiOperation({ summary: 'Liveness with a database check' })
  liveness() {
    return this.health.check([() => this.database()]);
  }

  @Get('ready')
  @HealthCheck()
  @ApiOperation({ summary: 'Readiness: database, memory worker, campaigns behind' })
  readiness() {
    return this.health.check([
      () => this.database(),
      async () => {
        const check = this.indicators.check('worker');
        const behind = await this.campaigns.behind();
        return this.worker.isRunning ? check.up({ campaignsBehind: behind.length }) : check.down({ message: 'memory worker stopped' });
      },
    ]);
  }
}
