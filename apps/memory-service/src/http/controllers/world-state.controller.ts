import { CampaignReader, CampaignState, Fact, Player } from '@app/campaign';
import { APP_CONFIG, AppConfig, CLOCK, Clock, DomainError, notFound } from '@app/common';
import { TOKEN_COUNTER, TokenCounter } from '@app/context';
import { buildDigest, FACT_STATUSES, FactStatusFilter, renderHud, statusAt } from '@app/state';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import * as R from '../dto/responses';
import { ApiQuery, ApiRoute, ApiTags, ApiZodBody, ApiZodQuery } from '../api-docs';
import { asOfOf, asOfOnlyQuery, emptyBody } from '../dto/campaign.dto';
import { checkTtl, factBody, factType, playerBody, STATE_LIMITS } from '../dto/state.dto';
import { parse, pathId } from '../validation';
import { RequestWriteMeta, runCommand, WriteMeta, WriteMetaInterceptor } from '../write-meta';
import { Access } from '../route-access';

/** World facts, the digest, and player characters with their HUD (DESIGN §6). */
const FACT_EXAMPLE = {
  type: 'conflict',
  key: 'guild-war',
  value: 'The Guild is at war with the Syndicate',
  priority: 0,
  status: 'active',
  expiresAt: null,
  assertedAt: '2026-11-23T07:30:00.000Z',
  resolvedAt: null,
};
const PLAYER_EXAMPLE = {
  id: 'aria',
  name: 'Aria',
  aliases: [],
  stats: { HP: '12/20' },
  registeredVersion: 5,
  hud: { text: 'HUD: HP 12/20', tokens: 6, dropped: [] },
};

@ApiTags('world state')
@Controller('v1/campaigns/:cid')
@UseInterceptors(WriteMetaInterceptor)
export class WorldStateController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(CampaignReader) private readonly campaigns: CampaignReader,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(TOKEN_COUNTER) private readonly counter: TokenCounter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @ApiRoute(
    'Assert a fact (upsert of type+key); ephemeral types need a TTL',
    { schema: R.factResponse, operationId: 'assertFact', status: 200, example: { version: 9, fact: FACT_EXAMPLE } },
    [400, 404, 409, 412, 413, 422],
  )
  @ApiZodBody(factBody)
  @Access('full')
  @Put('facts/:type/:key')
  putFact(
    @Param('cid') cid: string,
    @Param('type') type: string,
    @Param('key') key: string,
    @Body() body: unknown,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    pathId(cid, 'campaign id');
    factType(type);
    pathId(key, 'fact key');
    checkTtl(body);
    const dto = parse(factBody, body);
    const now = this.clock.now();
    // Bounded like ttlSeconds: a fact "expiring" in the year 9999 is a durable fact with extra steps.
    if (dto.expiresAt !== undefined && Date.parse(dto.expiresAt) > now.getTime() + STATE_LIMITS.maxTtlSeconds * 1000) {
      throw new DomainError(
        'invalid',
        'VALIDATION_FAILED',
        `expiresAt must be at most ${STATE_LIMITS.maxTtlSeconds / 86_400} days from now`,
        [{ path: 'expiresAt', message: 'too far in the future' }],
      );
    }
    const expiresAt =
      dto.ttlSeconds !== undefined
        ? new Date(now.getTime() + dto.ttlSeconds * 1000).toISOString()
        : dto.expiresAt
          ? new Date(dto.expiresAt).toISOString()
          : null;
    const command = {
      type: 'AssertFact',
      factType: type,
      key,
      value: dto.value,
      priority: dto.priority ?? 0,
      expiresAt,
      now: now.toISOString(),
    } as const;
    return runCommand(this.commands, cid, command, meta, (r) => ({
      version: r.version,
      fact: this.factView(r.fact, new Date(r.now)),
    }));
  }

  @ApiRoute(
    'Resolve a fact (it leaves the digest)',
    {
      schema: R.factResponse,
      operationId: 'resolveFact',
      status: 200,
      example: { version: 10, fact: { ...FACT_EXAMPLE, status: 'resolved', resolvedAt: '2026-11-23T08:00:00.000Z' } },
    },
    [400, 404, 409, 412, 413, 422],
  )
  @Access('full')
  @Post('facts/:type/:key/resolve')
  @HttpCode(200)
  resolveFact(
    @Param('cid') cid: string,
    @Param('type') type: string,
    @Param('key') key: string,
    @Body() body: unknown,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    pathId(cid, 'campaign id');
    factType(type);
    pathId(key, 'fact key');
    parse(emptyBody, body);
    const now = this.clock.now();
    return runCommand(this.commands, cid, { type: 'ResolveFact', factType: type, key }, meta, (r) => ({
      version: r.version,
      fact: this.factView(r.fact, now),
    }));
  }

  @ApiRoute('Facts by status (active, resolved, expired, all)', {
    schema: R.factsResponse,
    operationId: 'listFacts',
    status: 200,
    example: { items: [FACT_EXAMPLE] },
  })
  @ApiQuery({ name: 'status', required: false, enum: ['active', 'resolved', 'expired', 'all'] })
  @ApiZodQuery(asOfOnlyQuery)
  @Access('viewer')
  @Get('facts')
  async facts(@Param('cid') cid: string, @Query() query: Record<string, unknown>) {
    pathId(cid, 'campaign id');
    const unknownParams = Object.keys(query ?? {}).filter((k) => k !== 'status' && k !== 'asOf');
    if (unknownParams.length)
      throw new DomainError('invalid', 'VALIDATION_FAILED', `unknown query parameter(s): ${unknownParams.join(', ')}`);
    const status = query?.status ?? 'active';
    if (typeof status !== 'string' || !(FACT_STATUSES as readonly string[]).includes(status)) {
      throw new DomainError('invalid', 'INVALID_STATUS', `status must be one of ${FACT_STATUSES.join(', ')}`);
    }
    const { state, horizon } = await this.campaigns.snapshot(cid, asOfOf(queryString(query?.asOf)), ['fact']);
    // §10: as of V, expiry is judged at the time of event V.
    const now = horizon.at === null ? this.clock.now() : new Date(horizon.at);
    const items = sortedFacts(state)
      .map((f) => this.factView(f, now))
      .filter((f) => (status as FactStatusFilter) === 'all' || f.status === status);
    return { items };
  }

  @ApiRoute('The deterministic world-state digest and its SHA-256 version', {
    schema: R.digestResponse,
    operationId: 'getDigest',
    status: 200,
    example: {
      version: 'b5bb9d8014a0f9b1d61e21e796d78dccdf1352f23cd32812f4850b878ae4944c',
      text: 'Conflict: The Guild is at war with the Syndicate',
      tokens: 11,
      dropped: [],
    },
  })
  @ApiZodQuery(asOfOnlyQuery)
  @Access('viewer')
  @Get('digest')
  async digest(@Param('cid') cid: string, @Query() query: unknown) {
    pathId(cid, 'campaign id');
    const q = parse(asOfOnlyQuery, query ?? {});
    const { state, horizon } = await this.campaigns.snapshot(cid, asOfOf(q.asOf), ['fact']);
    const now = horizon.at === null ? this.clock.now() : new Date(horizon.at);
    const d = buildDigest(Object.values(state.facts ?? {}), now, this.config.digestMaxTokens, (t) =>
      this.counter.count(t),
    );
    return {
      version: d.version,
      text: d.text,
      tokens: d.tokens,
      dropped: d.dropped.map((x) => ({ section: 'digest', ref: x.ref, tokens: x.tokens, reason: 'budget' })),
    };
  }

  @ApiRoute(
    'Register or update a player character (name, aliases, ordered stats for the HUD)',
    {
      schema: R.putPlayerResponse,
      operationId: 'putPlayer',
      status: 200,
      example: { version: 11, player: PLAYER_EXAMPLE },
    },
    [400, 404, 409, 412, 413, 422],
  )
  @ApiZodBody(playerBody)
  @Access('full')
  @Put('players/:pid')
  putPlayer(
    @Param('cid') cid: string,
    @Param('pid') pid: string,
    @Body() body: unknown,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    pathId(cid, 'campaign id');
    pathId(pid, 'player id');
    const dto = parse(playerBody, body);
    const stats =
      dto.stats === undefined ? undefined : Object.entries(dto.stats).map(([label, value]) => ({ label, value }));
    const command = {
      type: 'PutPlayer',
      playerId: pid,
      name: dto.name,
      aliases: dto.aliases,
      stats,
      locationId: dto.locationId,
    } as const;
    return runCommand(this.commands, cid, command, meta, (r) => ({
      version: r.version,
      player: this.playerView(r.player),
    }));
  }

  @ApiRoute('Player characters', {
    schema: R.playersResponse,
    operationId: 'listPlayers',
    status: 200,
    example: { items: [PLAYER_EXAMPLE] },
  })
  @ApiZodQuery(asOfOnlyQuery)
  @Access('viewer')
  @Get('players')
  async players(@Param('cid') cid: string, @Query() query: unknown) {
    pathId(cid, 'campaign id');
    const q = parse(asOfOnlyQuery, query ?? {});
    const { state } = await this.campaigns.snapshot(cid, asOfOf(q.asOf), ['player']);
    return {
      items: Object.values(state.players ?? {})
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map((p) => this.playerView(p)),
    };
  }

  @ApiRoute('One player character with its HUD line', {
    schema: R.playerResponse,
    operationId: 'getPlayer',
    status: 200,
    example: PLAYER_EXAMPLE,
  })
  @ApiZodQuery(asOfOnlyQuery)
  @Access('viewer')
  @Get('players/:pid')
  async player(@Param('cid') cid: string, @Param('pid') pid: string, @Query() query: unknown) {
    pathId(cid, 'campaign id');
    pathId(pid, 'player id');
    const q = parse(asOfOnlyQuery, query ?? {});
    const { state } = await this.campaigns.snapshot(cid, asOfOf(q.asOf), ['player']);
    const player = state.players?.[pid];
    if (!player) throw notFound('PLAYER_NOT_FOUND', `player ${pid} not found`);
    return this.playerView(player);
  }

  private factView(f: Fact, now: Date) {
    return {
      type: f.type,
      key: f.key,
      value: f.value,
      priority: f.priority,
      status: statusAt(f, now),
      expiresAt: f.expiresAt,
      assertedAt: f.assertedAt,
      resolvedAt: f.resolvedAt,
    };
  }

  private playerView(p: Player) {
    const hud = renderHud(p.stats, this.config.hudMaxTokens, (t) => this.counter.count(t));
    return {
      id: p.id,
      name: p.name,
      aliases: p.aliases,
      stats: Object.fromEntries(p.stats.map((s) => [s.label, s.value])),
      registeredVersion: p.registeredVersion,
      // §8 split parties: only a player placed apart has a location of its own.
      ...(p.locationId !== undefined ? { locationId: p.locationId } : {}),
      hud: {
        text: hud.text,
        tokens: hud.tokens,
        dropped: hud.dropped.map((d) => ({ section: 'hud', ref: d.ref, tokens: d.tokens, reason: 'budget' })),
      },
    };
  }
}

const sortedFacts = (state: CampaignState) =>
  Object.values(state.facts ?? {}).sort((a, b) =>
    a.type === b.type ? (a.key < b.key ? -1 : 1) : a.type < b.type ? -1 : 1,
  );

/** A query value that must be one string (a repeated parameter arrives as an array). */
function queryString(v: unknown): string | undefined {
  if (v === undefined || typeof v === 'string') return v;
  throw new DomainError('invalid', 'INVALID_VERSION', 'asOf must be one version number');
}
