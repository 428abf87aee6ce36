import { Controller, Get, Header, Inject } from '@nestjs/common';
import { Metrics } from './metrics';
import { ApiOperation, ApiResponse, ApiTags } from '../http/api-docs';
import { Access } from '../http/route-access';

@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  constructor(@Inject(Metrics) private readonly metrics: Metrics) {}

  @Access('full')
  @Get()
  @ApiOperation({ summary: 'Prometheus metrics', operationId: 'getMetrics' })
  @ApiResponse({
    status: 200,
    description: 'Prometheus text exposition format',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
