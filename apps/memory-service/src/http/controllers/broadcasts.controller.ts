import { BroadcastService } from '@app/broadcasts';
import { Body, Controller, Get, HttpCode, Inject, Post, Query, Req, UseInterceptors } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import * as R from '../dto/responses';
import { ApiRoute, ApiTags, ApiZodBody, ApiZodQuery } from '../api-docs';
import { LIMITS } from '../dto/campaign.dto';
import { idSchema, parse, queryInt } from '../validation';
import { RequestWriteMeta, WriteAnswer, WriteMeta, WriteMetaInterceptor } from '../write-meta';
import { callerOf } from '../caller';
import { SEARCH_LIMIT } from './search.controller';
import { Access } from '../route-access';

const broadcastBody = z.strictObject({
  content: z
    .string()
    .min(1)
    .max(LIMITS.contentChars)
    .refine((s) => s.trim().length > 0, 'must not be blank'),
  from: idSchema,
  visibility: z.enum(['public', 'gm']).optional().describe('gm: never shown to a viewer-bound key (default public)'),
});

const listQuery = z.strictObject({
  q: z.string().optional(),
  limit: queryInt(1, SEARCH_LIMIT.max).optional(),
});

/** Agent-to-agent announcements that belong to no campaign (DESIGN §7). */
@ApiTags('broadcasts')
@Controller('v1/broadcasts')
@UseInterceptors(WriteMetaInterceptor)
export class BroadcastsController {
  constructor(@Inject(BroadcastService) private readonly broadcasts: BroadcastService) {}

  @Access('full')
  @Post()
  @ApiRoute(
    'Post an agent-to-agent announcement (no campaign)',
    {
      schema: R.broadcastResponse,
      operationId: 'postBroadcast',
      status: 201,
      example: {
        id: '5f0c…',
        content: 'Pirates spotted near Vega',
        from: 'agent-7',
        at: '2026-11-23T07:30:00.000Z',
        visibility: 'public',
      },
    },
    [400, 413, 422],
  )
  @ApiZodBody(broadcastBody)
  @HttpCode(201)
  async post(
    @Body() body: unknown,
    @Req() req: FastifyRequest,
    @WriteMeta({ scope: 'broadcasts' }) write: RequestWriteMeta,
  ) {
    const dto = parse(broadcastBody, body);
    const meta = write.resolve();
    const out = await this.broadcasts.post(dto, {
      idempotency: meta.idempotency,
      metadata: meta.metadata,
      keyScope: callerOf(req).scopeKey,
    });
    return new WriteAnswer(out.body, out.replayed);
  }

  @Access('viewer')
  @Get()
  @ApiRoute('Broadcasts, newest first, or ranked by q', {
    schema: R.broadcastsResponse,
    operationId: 'listBroadcasts',
    status: 200,
    example: {
      items: [
        {
          kind: 'broadcast',
          ref: '5f0c…',
          id: '5f0c…',
          content: 'Pirates spotted near Vega',
          from: 'agent-7',
          snippet: '«Pirates» spotted near Vega',
          score: 3.2,
          at: '2026-11-23T07:30:00.000Z',
          visibility: 'public',
        },
      ],
    },
  })
  @ApiZodQuery(listQuery)
  async list(@Query() query: unknown, @Req() req: FastifyRequest) {
    const q = parse(listQuery, query);
    return {
      items: await this.broadcasts.list({
        q: q.q,
        limit: q.limit ?? SEARCH_LIMIT.default,
        keyScope: callerOf(req).scopeKey,
        gm: callerOf(req).viewer === null,
      }),
    };
  }
}
