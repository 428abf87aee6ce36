import { CampaignReader } from '@app/campaign';
import { APP_CONFIG, AppConfig, notFound } from '@app/common';
import { MemoryReader } from '@app/memory';
import { callView, UsageLedger, usageReport } from '@app/summarizer';
import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ApiRoute, ApiTags } from '../api-docs';
import * as R from '../dto/responses';
import { idSchema, memoryIdSchema } from '../validation';
import { Access } from '../route-access';

const TOTALS_EXAMPLE = {
  calls: 12,
  requests: 12,
  inputTokens: 5210,
  outputTokens: 640,
  cacheReadTokens: 1800,
  cacheWriteTokens: 200,
  latencyMs: 9300,
  failedCalls: 1,
  abandonedCalls: 0,
  estimatedCost: 0.008868,
  wastedCost: 0.00061,
};

/** §12: what the model calls of a campaign cost, per scope and model, and what each memory cost. */
@ApiTags('usage')
@Controller('v1/campaigns/:cid')
export class UsageController {
  constructor(
    @Inject(CampaignReader) private readonly campaigns: CampaignReader,
    @Inject(MemoryReader) private readonly memories: MemoryReader,
    @Inject(UsageLedger) private readonly ledger: UsageLedger,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Access('full')
  @Get('usage')
  @ApiRoute('Model calls and tokens of the campaign per scope and model, with an estimated cost from MODEL_PRICES', {
    schema: R.usageResponse,
    operationId: 'getUsage',
    status: 200,
    example: {
      campaignId: 'saltmere',
      currency: 'USD',
      totals: TOTALS_EXAMPLE,
      byScope: [{ scope: 'location', ...TOTALS_EXAMPLE }],
      byModel: [
        {
          model: 'claude-haiku-4-5',
          price: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
          ...TOTALS_EXAMPLE,
        },
      ],
      unpricedModels: [],
    },
  })
  async usage(@Param('cid', { schema: idSchema }) cid: string) {
    await this.campaigns.get(cid);
    return usageReport(cid, await this.ledger.groups(cid), this.config.modelPrices);
  }

  @Access('full')
  @Get('memories/:memoryId/usage')
  @ApiRoute('Every model call behind one memory, failed attempts included', {
    schema: R.memoryUsageResponse,
    operationId: 'getMemoryUsage',
    status: 200,
    example: {
      memoryId: 'saltmere:9:location:tavern',
      calls: [
        {
          scope: 'location',
          subjectId: 'tavern',
          attempt: 1,
          model: 'claude-haiku-4-5',
          outcome: 'ok',
          inputTokens: 412,
          outputTokens: 58,
          cacheReadTokens: 190,
          cacheWriteTokens: 0,
          latencyMs: 820,
          requests: 1,
          triggerVersion: 9,
          calledAt: '2026-11-23T07:28:01.120Z',
          estimatedCost: 0.000721,
        },
      ],
    },
  })
  async memoryUsage(
    @Param('cid', { schema: idSchema }) cid: string,
    @Param('memoryId', { schema: memoryIdSchema }) memoryId: string,
  ) {
    await this.campaigns.get(cid);
    const [memory] = await this.memories.byIds(cid, [memoryId]);
    if (!memory) throw notFound('MEMORY_NOT_FOUND', `memory ${memoryId} not found in campaign ${cid}`);
    const calls = await this.ledger.callsOfMemory(cid, memoryId);
    return { memoryId, calls: calls.map((c) => callView(c, this.config.modelPrices)) };
  }
}
