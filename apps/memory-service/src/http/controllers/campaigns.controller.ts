import { CampaignReader } from '@app/campaign';
import { newId } from '@app/common';
import { CheckpointStore, MemoryReader } from '@app/memory';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query, Req, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import * as R from '../dto/responses';
import { ApiRoute, ApiTags, ApiZodQuery, WRITE_ERRORS } from '../api-docs';
import { campaignFilterOf } from '../api-key.auth';
import {
  asOfOf,
  asOfQuery,
  createCampaignBody,
  LIMITS,
  locationBody,
  npcBody,
  questBody,
  settingsBody,
} from '../dto/campaign.dto';
import { idSchema, queryInt } from '../validation';
import { campaignView, emptyCursors } from '../views';
import { RequestWriteMeta, runCommand, WriteMeta, WriteMetaInterceptor } from '../write-meta';
import { Access } from '../route-access';
import { callerOf, witnessOf } from '../caller';
import { ViewerOrdinals } from '../viewer-ordinals';

export const CAMPAIGN_EXAMPLE = {
  id: 'saltmere',
  name: 'The Smugglers of Saltmere',
  version: 9,
  processedVersion: 9,
  currentLocationId: 'docks',
  currentActId: null,
  round: 1,
  settings: { perRoleMemory: false, clock: 'story' },
  messageCount: 2,
  locations: [{ id: 'tavern', name: 'The Rusty Anchor', dangerLevel: 'SAFE', completedEncounters: [] }],
  npcs: [{ id: 'mira', name: 'Mira', aliases: ['the barkeep'], locationId: 'tavern' }],
  quests: [],
  cursors: { world: 1, locations: { tavern: 1 }, npcs: { mira: 1 } },
  createdAt: '2026-11-23T07:20:00.000Z',
};

export const campaignQuery = z.strictObject({ ...asOfQuery });

export const campaignsQuery = z.strictObject({
  after: idSchema.optional(),
  limit: queryInt(1, LIMITS.listLimit).optional(),
});

@ApiTags('campaigns')
@Controller('v1/campaigns')
@UseInterceptors(WriteMetaInterceptor)
export class CampaignsController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(CampaignReader) private readonly campaigns: CampaignReader,
    @Inject(MemoryReader) private readonly memories: MemoryReader,
    @Inject(CheckpointStore) private readonly checkpoints: CheckpointStore,
  ) {}

  @Access('full')
  @Post()
  @HttpCode(201)
  @ApiRoute(
    'Create a campaign (the party starts nowhere)',
    {
      schema: R.campaignResponse,
      operationId: 'createCampaign',
      status: 201,
      example: { ...CAMPAIGN_EXAMPLE, version: 1, processedVersion: 0 },
    },
    [400, 409, 413, 422],
  )
  create(
    @Body({ schema: createCampaignBody }) dto: z.infer<typeof createCampaignBody>,
    @WriteMeta({ scope: 'campaigns' }) meta: RequestWriteMeta,
  ) {
    const command = {
      type: 'CreateCampaign',
      name: dto.name,
      perRoleMemory: dto.perRoleMemory,
      clock: dto.clock,
    } as const;
    return runCommand(this.commands, dto.id ?? newId(), command, meta, (r) =>
      campaignView(r.campaign, 0, emptyCursors()),
    );
  }

  @Access('viewer')
  @Get()
  @ApiZodQuery(campaignsQuery)
  @ApiRoute(
    'Campaigns by id after an exclusive id (only those the API key may reach)',
    {
      schema: R.campaignsResponse,
      operationId: 'listCampaigns',
      status: 200,
      example: {
        items: [
          {
            id: 'saltmere',
            name: 'The Smugglers of Saltmere',
            version: 9,
            processedVersion: 9,
            parent: null,
            createdAt: '2026-11-23T07:20:00.000Z',
          },
        ],
      },
    },
    [400],
  )
  async list(@Query({ schema: campaignsQuery }) q: z.infer<typeof campaignsQuery>, @Req() req: FastifyRequest) {
    const items = await this.campaigns.list({
      after: q.after,
      limit: q.limit ?? 50,
      visible: campaignFilterOf(req) ?? undefined,
    });
    const at = await this.checkpoints.getMany(items.map((c) => c.id));
    // The checkpoint, read after the version, may be further on: capped, it says what was true of that version.
    const processed = (id: string, version: number) => Math.min(at.get(id)?.processedVersion ?? 0, version);
    return {
      items: items.map((c) => ({
        id: c.id,
        name: c.name,
        version: c.version,
        processedVersion: processed(c.id, c.version),
        parent: c.parent,
        createdAt: c.createdAt,
      })),
    };
  }

  @Access('viewer')
  @Get(':cid')
  @ApiZodQuery(campaignQuery)
  @ApiRoute('Campaign state, versions and memory cursors', {
    schema: R.campaignResponse,
    operationId: 'getCampaign',
    status: 200,
    example: CAMPAIGN_EXAMPLE,
  })
  async get(
    @Param('cid', { schema: idSchema }) cid: string,
    @Query({ schema: campaignQuery }) q: z.infer<typeof campaignQuery>,
    @Req() req: FastifyRequest,
  ) {
    const asOf = asOfOf(q.asOf);
    // The checkpoint before the state: read later, the state's version can only be further on (processed ≤ version).
    const { processedVersion } = await this.checkpoints.get(cid);
    const { state, horizon } = await this.campaigns.snapshot(cid, asOf);
    // As of V the worker had processed at most V (§10).
    const processed = Math.min(processedVersion, state.version);
    const witness = witnessOf(callerOf(req));
    // DESIGN §8: a bound key reads how many messages its character witnessed, and no cursor (a campaign index).
    const view =
      witness === undefined
        ? campaignView(state, processed, await this.memories.cursors(cid, horizon))
        : {
            ...campaignView(state, processed, emptyCursors()),
            messageCount: (await ViewerOrdinals.of(this.campaigns, cid, witness, horizon)).count,
            cursors: undefined,
          };
    return {
      ...view,
      timeline: horizon.timeline,
      parent: state.parent ?? null,
      children: await this.campaigns.children(cid),
    };
  }

  @Access('full')
  @Put(':cid/settings')
  @ApiRoute(
    'Change campaign settings (partial: perRoleMemory, clock)',
    {
      schema: R.settingsResponse,
      operationId: 'changeSettings',
      status: 200,
      example: { version: 4, settings: { perRoleMemory: true, clock: 'story' } },
    },
    WRITE_ERRORS,
  )
  settings(
    @Param('cid', { schema: idSchema }) cid: string,
    @Body({ schema: settingsBody }) dto: z.infer<typeof settingsBody>,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    return runCommand(this.commands, cid, { type: 'ChangeSettings', ...dto }, meta, (r) => ({
      version: r.version,
      settings: { ...r.settings, clock: r.settings.clock ?? 'story' },
    }));
  }

  @Access('full')
  @Put(':cid/locations/:lid')
  @ApiRoute(
    'Register or update a location',
    {
      schema: R.locationResponse,
      operationId: 'putLocation',
      status: 200,
      example: { version: 2, location: CAMPAIGN_EXAMPLE.locations[0] },
    },
    WRITE_ERRORS,
  )
  putLocation(
    @Param('cid', { schema: idSchema }) cid: string,
    @Param('lid', { schema: idSchema }) lid: string,
    @Body({ schema: locationBody }) dto: z.infer<typeof locationBody>,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    const command = { type: 'PutLocation', locationId: lid, ...dto } as const;
    return runCommand(this.commands, cid, command, meta, (r) => ({ version: r.version, location: r.location }));
  }

  @Access('full')
  @Put(':cid/npcs/:nid')
  @ApiRoute(
    'Register or update an NPC (locationId null = nowhere; a move is an update)',
    {
      schema: R.npcResponse,
      operationId: 'putNpc',
      status: 200,
      example: { version: 3, npc: CAMPAIGN_EXAMPLE.npcs[0] },
    },
    WRITE_ERRORS,
  )
  putNpc(
    @Param('cid', { schema: idSchema }) cid: string,
    @Param('nid', { schema: idSchema }) nid: string,
    @Body({ schema: npcBody }) dto: z.infer<typeof npcBody>,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    return runCommand(this.commands, cid, { type: 'PutNpc', npcId: nid, ...dto }, meta, (r) => ({
      version: r.version,
      npc: r.npc,
    }));
  }

  @Access('full')
  @Put(':cid/quests/:qid')
  @ApiRoute(
    'Register or update a quest and its objectives',
    {
      schema: R.questResponse,
      operationId: 'putQuest',
      status: 200,
      example: {
        version: 4,
        quest: {
          id: 'relic',
          name: 'The Drowned Relic',
          completed: false,
          objectives: [{ id: 'find-map', name: 'Find the map', completed: false }],
        },
      },
    },
    WRITE_ERRORS,
  )
  putQuest(
    @Param('cid', { schema: idSchema }) cid: string,
    @Param('qid', { schema: idSchema }) qid: string,
    @Body({ schema: questBody }) dto: z.infer<typeof questBody>,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    return runCommand(this.commands, cid, { type: 'PutQuest', questId: qid, ...dto }, meta, (r) => ({
      version: r.version,
      quest: r.quest,
    }));
  }
}
