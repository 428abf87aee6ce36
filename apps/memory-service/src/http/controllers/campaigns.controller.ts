import { CampaignReader, ChangeSettingsCommand, CreateCampaignCommand, PutLocationCommand, PutNpcCommand, PutQuestCommand, WriteOutcome } from '@app/campaign';
import { newId } from '@app/common';
import { MemoryReader } from '@app/memory';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createCampaignBody, locationBody, npcBody, questBody, settingsBody } from '../dto/campaign.dto';
import { parse, pathId } from '../validation';
import { campaignView, emptyCursors } from '../views';
import { markReplay, writeMeta } from '../write-context';

@Controller('v1/campaigns')
export class CampaignsController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(CampaignReader) private readonly campaigns: CampaignReader,
    @Inject(MemoryReader) private readonly memories: MemoryReader,
  ) {}

  @Post()
  @HttpCode(201)
  async create(@Body() body: unknown, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const dto = parse(createCampaignBody, body);
    const id = dto.id ?? newId();
    const meta = writeMeta(req, 'campaigns', body);
    const out: WriteOutcome<unknown> = await this.commands.execute(
      new CreateCampaignCommand(id, { name: dto.name, perRoleMemory: dto.perRoleMemory }, meta, (r) => campaignView(r.state, 0, emptyCursors())),
    );
    markReplay(reply, out.replayed);
    return out.body;
  }

  @Get(':cid')
  async get(@Param('cid') cid: string) {
    const snap = await this.campaigns.get(pathId(cid, 'campaign id'));
    return campaignView(snap.state, snap.processedVersion, await this.memories.cursors(cid));
  }

  @Put(':cid/settings')
  async settings(@Param('cid') cid: string, @Body() body: unknown, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    pathId(cid, 'campaign id');
    const dto = parse(settingsBody, body);
    const out = await this.commands.execute(new ChangeSettingsCommand(cid, dto, writeMeta(req, cid, body), (r) => ({ version: r.version, settings: r.state.settings })));
    markReplay(reply, out.replayed);
    return out.body;
  }

  @Put(':cid/locations/:lid')
  async putLocation(@Param('cid') cid: string, @Param('lid') lid: string, @Body() body: unknown, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    pathId(cid, 'campaign id');
    pathId(lid, 'location id');
    const dto = parse(locationBody, body);
    const out = await this.commands.execute(
      new PutLocationCommand(cid, { locationId: lid, ...dto }, writeMeta(req, cid, body), (r) => ({ version: r.version, location: r.state.locations[lid] })),
    );
    markReplay(reply, out.replayed);
    return out.body;
  }

  @Put(':cid/npcs/:nid')
  async putNpc(@Param('cid') cid: string, @Param('nid') nid: string, @Body() body: unknown, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    pathId(cid, 'campaign id');
    pathId(nid, 'NPC id');
    const dto = parse(npcBody, body);
    const out = await this.commands.execute(new PutNpcCommand(cid, { npcId: nid, ...dto }, writeMeta(req, cid, body), (r) => ({ version: r.version, npc: r.state.npcs[nid] })));
    markReplay(reply, out.replayed);
    return out.body;
  }

  @Put(':cid/quests/:qid')
  async putQuest(@Param('cid') cid: string, @Param('qid') qid: string, @Body() body: unknown, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    pathId(cid, 'campaign id');
    pathId(qid, 'quest id');
    const dto = parse(questBody, body);
    const out = await this.commands.execute(new PutQuestCommand(cid, { questId: qid, ...dto }, writeMeta(req, cid, body), (r) => ({ version: r.version, quest: r.state.quests[qid] })));
    markReplay(reply, out.replayed);
    return out.body;
  }
}
