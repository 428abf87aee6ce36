import { MemoryWorker } from '@app/memory';
import { ReplicaMetrics, workerLag } from '@app/replica';
import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DataSource } from 'typeorm';

@Controller('health')
export class HealthController {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(MemoryWorker) private readonly worker: MemoryWorker,
    @Inject(ReplicaMetrics) private readonly replica: ReplicaMetrics,
  ) {}

  @Get()
  async health() {
    await this.dataSource.query('SELECT 1');
    return { status: 'ok', database: 'up' };
  }

  /** Readiness (DESIGN §9): database reachable, worker running, and the leases this replica holds. */
  @Get('ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const lag = await workerLag(this.dataSource).catch(() => null);
    const database = lag ? 'up' : 'down';
    const worker = this.worker.isRunning() ? 'running' : 'stopped';
    const ok = database === 'up' && worker === 'running';
    if (!ok) void reply.status(503);
    return { status: ok ? 'ok' : 'unavailable', database, worker, replica: this.replica.snapshot(lag ?? { campaigns: 0, events: 0 }) };
  }
}
