import { CampaignReader } from '@app/campaign';
import { CheckpointStore, MemoryWorker } from '@app/memory';
import { ReplicaMetrics } from '@app/replica';
import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiRoute, ApiTags, ApiZodResponse } from '../api-docs';
import * as R from '../dto/responses';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { DataSource } from 'typeorm';
import { Access } from '../route-access';

/** Liveness (`/health`, terminus with a database check) and readiness (`/health/ready`, DESIGN §9). */
@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(
    @Inject(HealthCheckService) private readonly health: HealthCheckService,
    @Inject(HealthIndicatorService) private readonly indicators: HealthIndicatorService,
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(MemoryWorker) private readonly worker: MemoryWorker,
    @Inject(ReplicaMetrics) private readonly replica: ReplicaMetrics,
    @Inject(CampaignReader) private readonly campaigns: CampaignReader,
    @Inject(CheckpointStore) private readonly checkpoints: CheckpointStore,
  ) {}

  @Access('public')
  @Get()
  // Terminus would load @nestjs/swagger at boot to document it; ApiRoute documents it lazily instead.
  @HealthCheck({ noCache: true, swaggerDocumentation: false })
  @ApiRoute(
    'Liveness with a database check',
    { status: 200, schema: R.livenessResponse, operationId: 'getHealth' },
    [503],
  )
  liveness() {
    return this.health.check([
      async () => {
        const check = this.indicators.check('database');
        try {
          await this.dataSource.query('SELECT 1');
          return check.up({ type: this.dataSource.options.type });
        } catch (err) {
          return check.down({ message: (err as Error).message });
        }
      },
    ]);
  }

  /** Readiness: database reachable, worker running, the leases this replica holds, worker lag; 503 when not ready. */
  @Access('public')
  @Get('ready')
  @ApiRoute(
    'Readiness: database, memory worker, this replica and its leases, worker lag',
    { status: 200, schema: R.readinessResponse, operationId: 'getReadiness' },
    [],
  )
  @ApiZodResponse(503, 'Not ready (database down or worker stopped)', R.readinessResponse)
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const lag = await this.workerLag().catch(() => null);
    const database = lag ? 'up' : 'down';
    const worker = this.worker.isRunning() ? 'running' : 'stopped';
    const ok = database === 'up' && worker === 'running';
    if (!ok) void reply.status(503);
    return {
      status: ok ? 'ok' : 'unavailable',
      database,
      worker,
      replica: this.replica.snapshot(lag ?? { campaigns: 0, events: 0 }),
    };
  }

  /** Campaigns behind and events not yet processed: each owner asked for its own table. */
  private async workerLag(): Promise<{ campaigns: number; events: number }> {
    const { campaigns, events } = await this.checkpoints.lag(await this.campaigns.versions());
    return { campaigns, events };
  }
}
