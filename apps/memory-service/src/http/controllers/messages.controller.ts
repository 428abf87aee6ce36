import { CampaignReader, MessageHorizon } from '@app/campaign';
import { BoundViewer, CLOCK, Clock } from '@app/common';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import * as R from '../dto/responses';
import { ApiRoute, ApiTags, WRITE_ERRORS } from '../api-docs';
import { asOfOf, asOfQuery, LIMITS, messagesBody } from '../dto/campaign.dto';
import { idSchema, queryInt } from '../validation';
import { RequestWriteMeta, runCommand, WriteAnswer, WriteMeta, WriteMetaInterceptor } from '../write-meta';
import { callerOf, viewerBound, witnessOf } from '../caller';
import { ViewerOrdinals } from '../viewer-ordinals';
import { Access } from '../route-access';

export const listMessagesQuery = z.strictObject({
  after: queryInt(-1, 2_000_000_000).optional(),
  limit: queryInt(1, LIMITS.listLimit).optional(),
  locationId: idSchema.optional(),
  ...asOfQuery,
  /** §10: retracted messages too, each with `retracted: {version, reason}`. */
  includeRetracted: z.enum(['true', 'false']).optional(),
});

const MESSAGE_EXAMPLE = {
  index: 0,
  role: 'npc',
  speaker: 'Mira',
  content: 'Smugglers moved forty crates to the old lighthouse.',
  locationId: 'tavern',
  npcIds: ['mira'],
  at: '2026-11-23T07:27:00.000Z',
  round: 1,
  visibility: 'public',
  audience: [],
  toolCalls: [],
  toolCallId: null,
  reasoning: null,
};

/**
 * POST …/messages once its path and body are valid: the RecordMessages command and its answer. Shared by the Nest route
 * (`MessagesController.record`, which documents it) and the handler that serves it (http/direct-routes.ts).
 */
export function recordMessages(
  commands: CommandBus,
  clock: Clock,
  cid: string,
  dto: z.infer<typeof messagesBody>,
  meta: RequestWriteMeta,
): Promise<WriteAnswer> {
  const command = { type: 'RecordMessages', messages: dto.messages, now: clock.now().toISOString() } as const;
  return runCommand(commands, cid, command, meta, (r) => ({ indexes: r.indexes, version: r.version }));
}

@ApiTags('messages')
@Controller('v1/campaigns/:cid/messages')
@UseInterceptors(WriteMetaInterceptor)
export class MessagesController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(CampaignReader) private readonly campaigns: CampaignReader,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Access('full')
  @Post()
  @HttpCode(201)
  @ApiRoute(
    'Record 1–500 messages (all or nothing)',
    {
      schema: R.recordMessagesResponse,
      operationId: 'recordMessages',
      status: 201,
      example: { indexes: [0, 1], version: 7 },
    },
    WRITE_ERRORS,
  )
  record(
    @Param('cid', { schema: idSchema }) cid: string,
    @Body({ schema: messagesBody }) dto: z.infer<typeof messagesBody>,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    return recordMessages(this.commands, this.clock, cid, dto, meta);
  }

  @Access('viewer')
  @Get()
  @ApiRoute('Messages after an index, oldest first', {
    schema: R.messagesResponse,
    operationId: 'listMessages',
    status: 200,
    example: { items: [MESSAGE_EXAMPLE] },
  })
  async list(
    @Param('cid', { schema: idSchema }) cid: string,
    @Query({ schema: listMessagesQuery }) q: z.infer<typeof listMessagesQuery>,
    @Req() req: FastifyRequest,
  ) {
    const horizon = await this.campaigns.horizon(cid, asOfOf(q.asOf));
    const caller = callerOf(req);
    const witnessedBy = witnessOf(caller);
    if (witnessedBy !== undefined && caller.viewer)
      return this.listAsViewer(cid, q, witnessedBy, caller.viewer, horizon);
    const items = await this.campaigns.messages(cid, {
      after: q.after,
      limit: q.limit ?? 100,
      locationId: q.locationId,
      at: horizon,
      includeRetracted: q.includeRetracted === 'true',
    });
    return { items: items.map(({ version: _v, ...m }) => m) };
  }

  /**
   * A viewer-bound key (DESIGN §8): its character's messages, each with its `seq` instead of the campaign index,
   * `after` a seq too; no reasoning (nobody's to witness) and no retracted text (the event log keeps that).
   */
  private async listAsViewer(
    cid: string,
    q: z.infer<typeof listMessagesQuery>,
    witness: string,
    viewer: BoundViewer,
    horizon: MessageHorizon,
  ) {
    if (q.includeRetracted === 'true') throw viewerBound(viewer, 'may not read retracted messages');
    const ordinals = await ViewerOrdinals.of(this.campaigns, cid, witness, horizon);
    const items = await this.campaigns.messages(cid, {
      after: q.after === undefined ? undefined : ordinals.indexAfterSeq(q.after),
      limit: q.limit ?? 100,
      locationId: q.locationId,
      witnessedBy: witness,
      at: horizon,
    });
    return {
      items: items.map(({ version: _v, index, ...m }) => ({ seq: ordinals.seqOf(index)!, ...m, reasoning: null })),
    };
  }
}
