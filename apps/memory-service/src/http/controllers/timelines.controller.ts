import { TimelineService } from '@app/campaign';
import { CheckpointStore, MemoryReader } from '@app/memory';
import { Body, Controller, Delete, HttpCode, Inject, Param, Post, UseInterceptors } from '@nestjs/common';
import { z } from 'zod';
import * as R from '../dto/responses';
import { ApiRoute, ApiTags, WRITE_ERRORS } from '../api-docs';
import { forkBody, rewindBody } from '../dto/campaign.dto';
import { idSchema } from '../validation';
import { campaignView } from '../views';
import { RequestWriteMeta, WriteAnswer, WriteMeta, WriteMetaInterceptor } from '../write-meta';
import { CAMPAIGN_EXAMPLE } from './campaigns.controller';
import { Access } from '../route-access';

const FORK_EXAMPLE = {
  ...CAMPAIGN_EXAMPLE,
  id: 'saltmere-what-if',
  version: 10,
  parent: { id: 'saltmere', version: 9 },
};

/**
 * DESIGN §10: fork, rewind in place, delete. Each runs in one transaction (TimelineService) and calls no model:
 * the memories the parent's worker recorded are copied, the fork's own worker does only the rest.
 */
@ApiTags('campaigns')
@Controller('v1/campaigns')
@UseInterceptors(WriteMetaInterceptor)
export class TimelinesController {
  constructor(
    @Inject(TimelineService) private readonly timelines: TimelineService,
    @Inject(MemoryReader) private readonly memories: MemoryReader,
    @Inject(CheckpointStore) private readonly checkpoints: CheckpointStore,
  ) {}

  @Access('full')
  @Post(':cid/fork')
  @HttpCode(201)
  @ApiRoute(
    'Fork the campaign at a version (default: now) into a new, independent campaign; no model call',
    { schema: R.forkResponse, operationId: 'forkCampaign', status: 201, example: FORK_EXAMPLE },
    WRITE_ERRORS,
  )
  async fork(
    @Param('cid', { schema: idSchema }) cid: string,
    @Body({ schema: forkBody }) dto: z.infer<typeof forkBody>,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    // The fork as it was created (read in its transaction, recorded for a retry): the campaign view, with where it
    // came from.
    const out = await this.timelines.fork(cid, dto, meta.resolve(), async (m, reply, state) => {
      const { processedVersion } = await this.checkpoints.get(reply.id, m);
      const view = campaignView(state, processedVersion, await this.memories.cursors(reply.id, undefined, m));
      return { ...view, parent: reply.parent };
    });
    return new WriteAnswer(out.reply, out.replayed);
  }

  @Access('full')
  @Post(':cid/rewind')
  @HttpCode(200)
  @ApiRoute(
    'Rewind the campaign in place to a version (keepAs: keep the pre-rewind campaign as a fork first)',
    {
      schema: R.rewindResponse,
      operationId: 'rewindCampaign',
      status: 200,
      example: { version: 6, timeline: 2, discarded: { game: 4, memory: 1 }, keptAs: 'saltmere-before' },
    },
    WRITE_ERRORS,
  )
  async rewind(
    @Param('cid', { schema: idSchema }) cid: string,
    @Body({ schema: rewindBody }) dto: z.infer<typeof rewindBody>,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    const out = await this.timelines.rewind(cid, dto, meta.resolve());
    return new WriteAnswer(out.reply, out.replayed);
  }

  @Access('full')
  @Delete(':cid')
  @HttpCode(204)
  @ApiRoute(
    'Delete the campaign: its events, projections, search rows, snapshots, keys and lease, in one transaction',
    { status: 204, operationId: 'deleteCampaign', description: 'Deleted' },
    [400, 404, 412],
  )
  async remove(@Param('cid', { schema: idSchema }) cid: string, @WriteMeta({ body: false }) meta: RequestWriteMeta) {
    await this.timelines.delete(cid, meta.resolve());
  }
}
