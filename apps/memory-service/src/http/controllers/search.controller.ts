import { MESSAGE_ROLES } from '@app/campaign';
import { DomainError } from '@app/common';
import { SEARCH_IN, SearchService } from '@app/search';
import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { z } from 'zod';
import * as R from '../dto/responses';
import { ApiRoute, ApiTags, ApiZodQuery } from '../api-docs';
import { idSchema, parse, pathId, queryInt } from '../validation';

export const SEARCH_LIMIT = { default: 20, max: 100 };

const searchQuery = z.strictObject({
  // Any string: the query language's own parser says what is wrong with it (INVALID_QUERY).
  q: z.string().optional(),
  in: z.enum(SEARCH_IN).optional(),
  limit: queryInt(1, SEARCH_LIMIT.max).optional(),
  role: z.enum(MESSAGE_ROLES).optional(),
  locationId: idSchema.optional(),
});

/** GET /v1/campaigns/:cid/search (DESIGN §7): ranked full-text search over messages, reasoning, memories. */
@ApiTags('search')
@Controller('v1/campaigns/:cid/search')
export class SearchController {
  constructor(@Inject(SearchService) private readonly searches: SearchService) {}

  @Get()
  @ApiRoute('Ranked full-text search over messages, reasoning or memories (query language: words, "phrases", prefix*, OR, NOT)', { schema: R.searchResponse, operationId: 'search', status: 200, example: { items: [{ kind: 'message', ref: 412, snippet: 'the «iron» «ore» shipment…', score: 7.1, at: '2026-11-23T07:27:00.000Z', round: 3 }] } })
  @ApiZodQuery(searchQuery)
  async search(@Param('cid') cid: string, @Query() query: unknown) {
    pathId(cid, 'campaign id');
    const q = parse(searchQuery, query);
    const scope = q.in ?? 'messages';
    if (scope === 'memories' && q.role !== undefined) {
      throw new DomainError('invalid', 'VALIDATION_FAILED', 'role filters messages and reasoning; memories have no role', [{ path: 'role', message: 'not allowed with in=memories' }]);
    }
    const hits = await this.searches.search(cid, q.q ?? '', { in: scope, role: q.role, locationId: q.locationId, limit: q.limit ?? SEARCH_LIMIT.default });
    return { items: hits.map((h) => ({ kind: h.kind, ref: h.ref, snippet: h.snippet, score: h.score, at: h.at, round: h.round })) };
  }
}
