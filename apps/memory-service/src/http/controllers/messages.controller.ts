import { CampaignReader } from '@app/campaign';
import { CLOCK, Clock } from '@app/common';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import * as R from '../dto/responses';
import { ApiRoute, ApiTags, WRITE_ERRORS } from '../api-docs';
import { asOfOf, asOfQuery, LIMITS, messagesBody } from '../dto/campaign.dto';
import { idSchema, queryInt } from '../validation';
import { RequestWriteMeta, runCommand, WriteMeta, WriteMetaInterceptor } from '../write-meta';
import { callerOf, witnessOf } from '../caller';
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
    const command = { type: 'RecordMessages', messages: dto.messages, now: this.clock.now().toISOString() } as const;
    return runCommand(this.commands, cid, command, meta, (r) => ({ indexes: r.indexes, version: r.version }));
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
    const witnessedBy = witnessOf(callerOf(req));
    const items = await this.campaigns.messages(cid, {
      after: q.after,
      limit: q.limit ?? 100,
      locationId: q.locationId,
      witnessedBy,
      at: horizon,
      includeRetracted: q.includeRetracted === 'true',
    });
    // An agent's reasoning is nobody's to witness: a viewer-bound key gets the messages without it.
    return { items: items.map(({ version: _v, ...m }) => (witnessedBy ? { ...m, reasoning: null } : m)) };
  }
}
