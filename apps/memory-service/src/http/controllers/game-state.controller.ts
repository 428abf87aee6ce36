import { CampaignReader, LogInAccountCommand, LogOutAccountCommand } from '@app/campaign';
import { SnapshotStore } from '@app/state';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { emptyBody } from '../dto/campaign.dto';
import { actionBody, checkTick, loginBody, snapshotBody, toolRuleBody } from '../dto/state.dto';
import { parse, pathId, queryInt } from '../validation';
import { markReplay, writeMeta } from '../write-context';

const listQuery = z.strictObject({ tick: queryInt(0, Number.MAX_SAFE_INTEGER).optional() });

/** Game-state snapshots, tool rules and account login/logout (DESIGN §5). */
@Controller('v1/campaigns/:cid')
export class GameStateController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(CampaignReader) private readonly campaigns: CampaignReader,
    @Inject(SnapshotStore) private readonly snapshots: SnapshotStore,
  ) {}

  @Put('accounts/:acc/snapshots/:tool')
  async putSnapshot(@Param('cid') cid: string, @Param('acc') acc: string, @Param('tool') tool: string, @Body() body: unknown) {
    this.ids(cid, acc, tool);
    checkTick(body);
    const dto = parse(snapshotBody, body);
    await this.campaigns.get(cid);
    return this.snapshots.put(cid, acc, tool, dto);
  }

  @Get('accounts/:acc/snapshots')
  async listSnapshots(@Param('cid') cid: string, @Param('acc') acc: string, @Query() query: unknown) {
    this.ids(cid, acc);
    const q = parse(listQuery, query);
    await this.campaigns.get(cid);
    return { items: await this.snapshots.list(cid, acc, q.tick ?? null) };
  }

  @Get('accounts/:acc/snapshots/:tool')
  async getSnapshot(@Param('cid') cid: string, @Param('acc') acc: string, @Param('tool') tool: string) {
    this.ids(cid, acc, tool);
    await this.campaigns.get(cid);
    return this.snapshots.get(cid, acc, tool);
  }

  @Post('accounts/:acc/actions')
  @HttpCode(200)
  async act(@Param('cid') cid: string, @Param('acc') acc: string, @Body() body: unknown) {
    this.ids(cid, acc);
    checkTick(body);
    const dto = parse(actionBody, body);
    await this.campaigns.get(cid);
    return { stale: await this.snapshots.act(cid, acc, dto.action, dto.tick ?? null) };
  }

  @Post(['accounts/:acc/login', 'accounts/:acc/register'])
  @HttpCode(200)
  async login(@Param('cid') cid: string, @Param('acc') acc: string, @Body() body: unknown, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    this.ids(cid, acc);
    const dto = parse(loginBody, body);
    const out = await this.commands.execute(
      new LogInAccountCommand(cid, { accountId: acc, agentId: dto.agentId }, writeMeta(req, cid, body), (r) => ({
        version: r.version,
        account: acc,
        agentId: dto.agentId,
        previousAccount: (r.events[0]?.data.previousAccountId as string | null | undefined) ?? null,
      })),
    );
    markReplay(reply, out.replayed);
    return out.body;
  }

  @Post('accounts/:acc/logout')
  @HttpCode(200)
  async logout(@Param('cid') cid: string, @Param('acc') acc: string, @Body() body: unknown, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    this.ids(cid, acc);
    parse(emptyBody, body);
    const out = await this.commands.execute(new LogOutAccountCommand(cid, { accountId: acc }, writeMeta(req, cid, body), (r) => ({ version: r.version, account: acc, loggedOut: true })));
    markReplay(reply, out.replayed);
    return out.body;
  }

  @Get('accounts')
  async accounts(@Param('cid') cid: string) {
    pathId(cid, 'campaign id');
    await this.campaigns.get(cid);
    return { items: await this.snapshots.accounts(cid) };
  }

  @Put('snapshot-tools/:tool')
  async putToolRule(@Param('cid') cid: string, @Param('tool') tool: string, @Body() body: unknown) {
    pathId(cid, 'campaign id');
    pathId(tool, 'tool');
    const dto = parse(toolRuleBody, body);
    await this.campaigns.get(cid);
    return this.snapshots.putRule(cid, { tool, title: dto.title ?? null, fields: dto.fields ?? null, invalidatedBy: dto.invalidatedBy ?? null, maxAgeTicks: dto.maxAgeTicks ?? null });
  }

  @Get('snapshot-tools')
  async toolRules(@Param('cid') cid: string) {
    pathId(cid, 'campaign id');
    await this.campaigns.get(cid);
    return { items: Object.values(await this.snapshots.rules(cid)) };
  }

  private ids(cid: string, acc: string, tool?: string): void {
    pathId(cid, 'campaign id');
    pathId(acc, 'account id');
    if (tool !== undefined) pathId(tool, 'tool');
  }
}
