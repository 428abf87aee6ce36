import { ReplicaMetrics, workerLag } from '@app/replica';
import { Controller, Get, Header, Inject } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Prometheus text: the replica's lease counters and worker lag (DESIGN §9). */
@Controller('metrics')
export class MetricsController {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(ReplicaMetrics) private readonly replica: ReplicaMetrics,
  ) {}

  @Get()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async metrics(): Promise<string> {
    return this.replica.prometheus(await workerLag(this.dataSource));
  }
}
