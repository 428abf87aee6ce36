import { CampaignReader } from '@app/campaign';
import { AGENTS, ContextService, GetContextQuery, SECTION_ORDER } from '@app/context';
import { APP_CONFIG, AppConfig, DomainError } from '@app/common';
import { MemoryReader } from '@app/memory';
import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { asOfOf, asOfQuery, LIMITS, noWaitWithAsOf } from '../dto/campaign.dto';
import * as R from '../dto/responses';
import { ApiRoute, ApiTags } from '../api-docs';
import { idSchema, queryInt } from '../validation';
import { callerOf, viewerBound, witnessOf } from '../caller';
import { prefersText } from '../negotiate';
import { Access } from '../route-access';
import { memoryInSeq, ViewerOrdinals } from '../viewer-ordinals';
import { ReadPool, readKeyOf, sendRead } from '../../reads/read-pool';

export const MEMORY_EXAMPLE = {
  id: 'saltmere:9:location:tavern',
  scope: 'location',
  subjectId: 'tavern',
  summary:
    'At The Rusty Anchor: Aria paid Mira 3 silver; Mira said smugglers moved forty crates to the old lighthouse.',
  tags: ['location:tavern'],
  locationId: 'tavern',
  npcIds: [],
  questId: null,
  encounterId: null,
  sinceMessageIndex: 0,
  throughMessageIndex: 1,
  sinceTimestamp: '2026-11-23T07:27:00.000Z',
  createdAt: '2026-11-23T07:28:00.000Z',
  triggerVersion: 9,
};
const CONTEXT_EXAMPLE = {
  version: 10,
  processedVersion: 10,
  sections: [
    {
      title: 'Recent Location Memory',
      entries: [
        {
          ref: MEMORY_EXAMPLE.id,
          subjectId: 'tavern',
          createdAt: MEMORY_EXAMPLE.createdAt,
          text: `- 2026-11-23 07:28 — ${MEMORY_EXAMPLE.summary}`,
        },
      ],
    },
  ],
};

export const memoriesQuery = z.strictObject({
  scope: z.enum(['location', 'npc', 'world']).optional(),
  subjectId: idSchema.optional(),
  limit: queryInt(1, LIMITS.listLimit).optional(),
  before: z.string().min(1).max(300).optional(),
  ...asOfQuery,
});

export const eventsQuery = z.strictObject({
  stream: z.enum(['game', 'memory']).optional(),
  after: queryInt(0, 2_000_000_000).optional(),
  limit: queryInt(1, LIMITS.listLimit).optional(),
  ...asOfQuery,
});

const bool = z.enum(['true', 'false']).transform((v) => v === 'true');

export const contextQuery = z.strictObject({
  agent: z.enum(AGENTS).optional(),
  limit: queryInt(1, 100).optional(),
  format: z
    .enum(['json', 'text'])
    .meta({ description: 'text: an alias of Accept: text/plain; json: JSON whatever Accept says' })
    .optional(),
  minVersion: queryInt(0, 2_000_000_000).optional(),
  waitMs: queryInt(0, 30_000).optional(),
  viewer: idSchema.optional(),
  include: z.string().max(500).optional(),
  // Parsed by parseBudget (its own INVALID_BUDGET code); documented as the integer it is.
  budget: z
    .string()
    .refine((s) => s.length <= 12, 'must be an integer from 50 to 200000')
    .meta({ type: 'integer', minimum: 50, maximum: 200_000 })
    .optional(),
  query: z.string().min(1).max(2000).optional(),
  explain: bool.optional(),
  account: idSchema.optional(),
  agentId: idSchema.optional(),
  tick: queryInt(0, Number.MAX_SAFE_INTEGER).optional(),
  digestVersion: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 hex digest')
    .optional(),
  ...asOfQuery,
});

@ApiTags('memory and context')
@Controller('v1/campaigns/:cid')
export class MemoriesController {
  constructor(
    @Inject(ContextService) private readonly contexts: ContextService,
    @Inject(ReadPool) private readonly reads: ReadPool,
    @Inject(CampaignReader) private readonly campaigns: CampaignReader,
    @Inject(MemoryReader) private readonly memories: MemoryReader,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Access('viewer')
  @Get('memories')
  @ApiRoute('Memories, newest first', {
    schema: R.memoriesResponse,
    operationId: 'listMemories',
    status: 200,
    example: { items: [MEMORY_EXAMPLE] },
  })
  async list(
    @Param('cid', { schema: idSchema }) cid: string,
    @Query({ schema: memoriesQuery }) q: z.infer<typeof memoriesQuery>,
    @Req() req: FastifyRequest,
  ) {
    const horizon = await this.campaigns.horizon(cid, asOfOf(q.asOf));
    const viewer = witnessOf(callerOf(req));
    const items = await this.memories.list(cid, {
      scope: q.scope,
      subjectId: q.subjectId,
      limit: q.limit ?? 50,
      before: q.before,
      viewer,
      at: horizon,
    });
    if (viewer === undefined) return { items };
    // DESIGN §8: a bound key reads the message range in its own seqs.
    const ordinals = await ViewerOrdinals.of(this.campaigns, cid, viewer, horizon);
    return { items: items.map((memory) => memoryInSeq(memory, ordinals)) };
  }

  @Access('full')
  @Get('events')
  @ApiRoute('Events of the game or memory stream, oldest first', {
    schema: R.eventsResponse,
    operationId: 'listEvents',
    status: 200,
    example: {
      timeline: 1,
      items: [
        {
          version: 5,
          type: 'LocationChanged',
          data: { fromLocationId: null, toLocationId: 'tavern', npcsPresent: [] },
          metadata: { correlationId: 'req-1' },
          recordedAt: '2026-11-23T07:27:00.000Z',
        },
      ],
    },
  })
  async events(
    @Param('cid', { schema: idSchema }) cid: string,
    @Query({ schema: eventsQuery }) q: z.infer<typeof eventsQuery>,
  ) {
    const stream = q.stream ?? 'game';
    const horizon = await this.campaigns.horizon(cid, asOfOf(q.asOf));
    // §10: the game stream through V, the memory stream through its outcomes of events ≤ V (unbounded when current).
    const until = !horizon.current ? (stream === 'game' ? horizon.version : horizon.memoryVersion) : undefined;
    const items = await this.campaigns.events(cid, stream, { after: q.after, until, limit: q.limit ?? 100 });
    return {
      timeline: horizon.timeline,
      items: items.map((e) => ({
        version: e.version,
        type: e.type,
        data: e.data,
        metadata: e.metadata,
        recordedAt: e.recordedAt,
      })),
    };
  }

  @Access('viewer')
  @Get('context')
  @ApiRoute(
    'Prompt-ready context for an agent: JSON, or text/plain for Accept: text/plain (or format=text); ' +
      'minVersion+waitMs wait for the worker',
    {
      schema: R.contextResponse,
      operationId: 'getContext',
      text: true,
      status: 200,
      example: CONTEXT_EXAMPLE,
    },
    [400, 404, 503],
  )
  async context(
    @Param('cid', { schema: idSchema }) cid: string,
    @Query({ schema: contextQuery }) q: z.infer<typeof contextQuery>,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    noWaitWithAsOf(q);
    const asOf = asOfOf(q.asOf);
    const include = q.include === undefined ? undefined : parseInclude(q.include);
    const budget = q.budget === undefined ? undefined : parseBudget(q.budget);
    const bound = callerOf(req).viewer;
    const { agent, viewer } = presetOf(q, bound);
    const legacy =
      agent === 'narrative' &&
      viewer === undefined &&
      include === undefined &&
      budget === undefined &&
      q.query === undefined;
    const request = {
      campaignId: cid,
      agent,
      limit: q.limit ?? this.config.contextMemoryLimit,
      viewer,
      include,
      budget,
      query: q.query,
      account: q.account,
      agentId: q.agentId,
      tick: q.tick,
      digestVersion: q.digestVersion,
      asOf,
      legacy,
    };
    const wait = q.minVersion !== undefined ? { minVersion: q.minVersion, waitMs: q.waitMs ?? 0 } : undefined;
    // §13: checks and the read-your-writes wait here, the build on a read worker.
    await this.contexts.admit(new GetContextQuery(request, wait));
    // The answer depends on Accept (unless format pins it): caches must key on it.
    void reply.header('vary', 'Accept');
    const text = q.format === 'text' || (q.format === undefined && prefersText(req.headers.accept));
    const format = text ? ('text' as const) : ('json' as const);
    // DESIGN §8: a bound key's JSON refs are seqs (its text form prints no message numbers at all).
    const witness = bound ? witnessOf(callerOf(req)) : undefined;
    const task = { kind: 'context' as const, request, format, explain: q.explain ?? true, witness };
    return sendRead(reply, await this.reads.run(task, readKeyOf(req)));
  }
}

/** A viewer-bound key reads its own character's preset only (§8): no dm, no narrative view, no other viewer. */
function presetOf(q: z.infer<typeof contextQuery>, bound: ReturnType<typeof callerOf>['viewer']) {
  const agent = q.agent ?? bound?.kind ?? 'narrative';
  const viewer = q.viewer ?? bound?.id;
  if (bound && (agent !== bound.kind || viewer !== bound.id))
    throw viewerBound(bound, `may only read agent=${bound.kind}&viewer=${bound.id}`);
  return { agent, viewer };
}

function parseInclude(raw: string) {
  const keys = raw
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  const unknown = keys.filter((k) => !(SECTION_ORDER as readonly string[]).includes(k));
  if (keys.length === 0 || unknown.length)
    throw new DomainError(
      'invalid',
      'INVALID_INCLUDE',
      `unknown section key(s): ${unknown.join(', ') || '(none given)'}; known: ${SECTION_ORDER.join(', ')}`,
    );
  return keys as (typeof SECTION_ORDER)[number][];
}

function parseBudget(raw: string): number {
  const n = /^\d{1,7}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 50 && n <= 200_000))
    throw new DomainError('invalid', 'INVALID_BUDGET', 'budget must be an integer from 50 to 200000');
  return n;
}
