import { CampaignReader, Horizon, MESSAGE_ROLES } from '@app/campaign';
import { DomainError } from '@app/common';
import { MemoryReader } from '@app/memory';
import { SEARCH_IN, SearchHit, SearchService } from '@app/search';
import { Controller, Get, Inject, Param, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import * as R from '../dto/responses';
import { ApiRoute, ApiTags, ApiZodQuery } from '../api-docs';
import { idSchema, parse, pathId, queryInt } from '../validation';
import { asOfOf, asOfQuery } from '../dto/campaign.dto';
import { callerOf, viewerBound, witnessOf } from '../caller';
import { Access } from '../route-access';
import { ViewerOrdinals } from '../viewer-ordinals';

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
  constructor(
    @Inject(SearchService) private readonly searches: SearchService,
    @Inject(CampaignReader) private readonly campaigns: CampaignReader,
    @Inject(MemoryReader) private readonly memories: MemoryReader,
  ) {}

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
  )
  @ApiZodQuery(searchQuery)
  async search(@Param('cid') cid: string, @Query() query: unknown, @Req() req: FastifyRequest) {
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
    const asOf = asOfOf(q.asOf);
    const ranked = await this.searches.search(cid, q.q ?? '', {
      in: scope,
      role: q.role,
      locationId: q.locationId,
      limit: asked,
      asOf,
    });
    const horizon = await this.campaigns.horizon(cid, asOf);
    const hits = (await this.servedHits(cid, witness, ranked, horizon)).slice(0, limit);
    // DESIGN §8: a bound key's message hits are its own seqs, not campaign indexes.
    const ordinals = witness ? await ViewerOrdinals.of(this.campaigns, cid, witness, horizon) : undefined;
    const ref = (h: SearchHit) => (ordinals && h.kind !== 'memory' ? ordinals.seqAtOrAfter(Number(h.ref)) : h.ref);
    return {
      items: hits.map((h) => ({
        kind: h.kind,
        ref: ref(h),
        snippet: h.snippet,
        score: h.score,
        at: h.at,
        round: h.round,
      })),
    };
  }

  /**
   * The hits the caller may be served at the horizon: a viewer's witnessed ones (§8), and for everyone only messages
   * not retracted by then and memories active then (§10: the index keeps rows of both; primary-key lookups of the
   * hits only).
   */
  private async servedHits(
    cid: string,
    witness: string | undefined,
    hits: SearchHit[],
    at: Horizon,
  ): Promise<SearchHit[]> {
    const indexes = hits.filter((h) => h.kind !== 'memory').map((h) => Number(h.ref));
    const visible = witness
      ? await this.campaigns.witnessed(cid, witness, indexes, at)
      : new Set((await this.campaigns.messagesByIndex(cid, indexes, at)).map((m) => m.index));
    const memoryIds = hits.filter((h) => h.kind === 'memory').map((h) => String(h.ref));
    const memories = new Set((await this.memories.byIds(cid, memoryIds, witness, at)).map((m) => m.id));
    return hits.filter((h) => (h.kind === 'memory' ? memories.has(String(h.ref)) : visible.has(Number(h.ref))));
  }
}
