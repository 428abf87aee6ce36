import { MESSAGE_ROLES } from '@app/campaign';
import { DomainError } from '@app/common';
import { SEARCH_IN } from '@app/search';
import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import * as R from '../dto/responses';
import { ApiRoute, ApiTags, ApiZodQuery } from '../api-docs';
import { idSchema, parse, pathId, queryInt } from '../validation';
import { asOfOf, asOfQuery } from '../dto/campaign.dto';
import { callerOf, viewerBound, witnessOf } from '../caller';
import { Access } from '../route-access';
import { ReadPool, readKeyOf, sendRead } from '../../reads/read-pool';

export const SEARCH_LIMIT = { default: 20, max: 100 };

const searchQuery = z.strictObject({
  // Any string: the query language's own parser says what is wrong with it (INVALID_QUERY).
  q: z.string().optional(),
  in: z.enum(SEARCH_IN).optional(),
  limit: queryInt(1, SEARCH_LIMIT.max).optional(),
  role: z.enum(MESSAGE_ROLES).optional(),
  locationId: idSchema.optional(),
  ...asOfQuery,
});

const WITNESSED_POOL_FACTOR = 5;
const WITNESSED_POOL_MAX = 500;

/** GET /v1/campaigns/:cid/search (DESIGN §7): ranked full-text search over messages, reasoning, memories. */
@ApiTags('search')
@Controller('v1/campaigns/:cid/search')
export class SearchController {
  constructor(@Inject(ReadPool) private readonly reads: ReadPool) {}

  @Access('viewer')
  @Get()
  @ApiRoute(
    'Ranked full-text search over messages, reasoning or memories (query language: words, "phrases", prefix*, OR, NOT)',
    {
      schema: R.searchResponse,
      operationId: 'search',
      status: 200,
      example: {
        items: [
          {
            kind: 'message',
            ref: 412,
            snippet: 'the «iron» «ore» shipment…',
            score: 7.1,
            at: '2026-11-23T07:27:00.000Z',
            round: 3,
          },
        ],
      },
    },
    [400, 404, 503],
  )
  @ApiZodQuery(searchQuery)
  async search(
    @Param('cid') cid: string,
    @Query() query: unknown,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    pathId(cid, 'campaign id');
    const q = parse(searchQuery, query);
    const scope = q.in ?? 'messages';
    if (scope === 'memories' && q.role !== undefined) {
      throw new DomainError(
        'invalid',
        'VALIDATION_FAILED',
        'role filters messages and reasoning; memories have no role',
        [{ path: 'role', message: 'not allowed with in=memories' }],
      );
    }
    const caller = callerOf(req);
    const witness = witnessOf(caller);
    // An agent's reasoning is nobody's to witness: a viewer-bound key has no filtered version of it to read.
    if (caller.viewer && scope === 'reasoning') throw viewerBound(caller.viewer, 'may not search reasoning');
    const limit = q.limit ?? SEARCH_LIMIT.default;
    // A viewer sees the hits it witnessed: ask the index for more, keep the witnessed ones, best first.
    const asked = witness ? Math.min(WITNESSED_POOL_MAX, limit * WITNESSED_POOL_FACTOR) : limit;
    const options = { in: scope, role: q.role, locationId: q.locationId, limit: asked, asOf: asOfOf(q.asOf) };
    // §13: the index search and the filtering of its hits run on a read worker (reads/read-task.ts).
    const task = { kind: 'search' as const, campaignId: cid, text: q.q ?? '', options, witness, limit };
    return sendRead(reply, await this.reads.run(task, readKeyOf(req)));
  }
}
