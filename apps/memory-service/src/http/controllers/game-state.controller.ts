import { CampaignReader } from '@app/campaign';
import { SnapshotStore, StateTimeline } from '@app/state';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import * as R from '../dto/responses';
import { ApiRoute, ApiTags, ApiZodBody, ApiZodQuery } from '../api-docs';
import { z } from 'zod';
import { asOfOf, asOfOnlyQuery, emptyBody } from '../dto/campaign.dto';
import { actionBody, checkTick, loginBody, snapshotBody, toolRuleBody } from '../dto/state.dto';
import { parse, pathId, queryInt } from '../validation';
import { RequestWriteMeta, runCommand, WriteMeta, WriteMetaInterceptor } from '../write-meta';
import { Access } from '../route-access';

const listQuery = z.strictObject({ tick: queryInt(0, Number.MAX_SAFE_INTEGER).optional() });

/** Game-state snapshots, tool rules and account login/logout (DESIGN §5). */
@ApiTags('game state')
@Controller('v1/campaigns/:cid')
@UseInterceptors(WriteMetaInterceptor)
export class GameStateController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(CampaignReader) private readonly campaigns: CampaignReader,
    @Inject(SnapshotStore) private readonly snapshots: SnapshotStore,
    @Inject(StateTimeline) private readonly timeline: StateTimeline,
  ) {}

  @ApiRoute(
    'Store the latest result of a game tool for an account (merge: true deep-merges partial tools)',
    {
      schema: R.putSnapshotResponse,
      operationId: 'putSnapshot',
      status: 200,
      example: { tool: 'get_status', tick: 102, capturedAt: '2026-11-23T07:30:00.000Z', bytes: 812 },
    },
    [400, 404, 409, 413],
  )
  @ApiZodBody(snapshotBody)
  @Access('full')
  @Put('accounts/:acc/snapshots/:tool')
  async putSnapshot(
    @Param('cid') cid: string,
    @Param('acc') acc: string,
    @Param('tool') tool: string,
    @Body() body: unknown,
  ) {
    this.ids(cid, acc, tool);
    checkTick(body);
    const dto = parse(snapshotBody, body);
    await this.campaigns.get(cid);
    return this.snapshots.put(cid, acc, tool, dto);
  }

  @ApiRoute("The account's stored tools with age and staleness", {
    schema: R.snapshotsResponse,
    operationId: 'listSnapshots',
    status: 200,
    example: {
      items: [{ tool: 'get_status', tick: 102, capturedAt: '2026-11-23T07:30:00.000Z', bytes: 812, stale: false }],
    },
  })
  @ApiZodQuery(listQuery)
  @Access('viewer')
  @Get('accounts/:acc/snapshots')
  async listSnapshots(@Param('cid') cid: string, @Param('acc') acc: string, @Query() query: unknown) {
    this.ids(cid, acc);
    const q = parse(listQuery, query);
    await this.campaigns.get(cid);
    return { items: await this.snapshots.list(cid, acc, q.tick ?? null) };
  }

  @ApiRoute('One stored tool result with per-field update ticks', {
    schema: R.snapshotResponse,
    operationId: 'getSnapshot',
    status: 200,
    example: {
      tool: 'get_status',
      tick: 102,
      capturedAt: '2026-11-23T07:30:00.000Z',
      stale: false,
      fieldTicks: { 'player.credits': 102 },
      content: { player: { credits: 1200 } },
    },
  })
  @Access('viewer')
  @Get('accounts/:acc/snapshots/:tool')
  async getSnapshot(@Param('cid') cid: string, @Param('acc') acc: string, @Param('tool') tool: string) {
    this.ids(cid, acc, tool);
    await this.campaigns.get(cid);
    return this.snapshots.get(cid, acc, tool);
  }

  @ApiRoute('Report a game action; marks the tools it invalidates as stale', {
    schema: R.actionResponse,
    operationId: 'reportAction',
    status: 200,
    example: { stale: ['get_status', 'get_system'] },
  })
  @ApiZodBody(actionBody)
  @Access('full')
  @Post('accounts/:acc/actions')
  @HttpCode(200)
  async act(@Param('cid') cid: string, @Param('acc') acc: string, @Body() body: unknown) {
    this.ids(cid, acc);
    checkTick(body);
    const dto = parse(actionBody, body);
    await this.campaigns.get(cid);
    return { stale: await this.snapshots.act(cid, acc, dto.action, dto.tick ?? null) };
  }

  @ApiRoute(
    'Bind an agent to the account (last login wins)',
    {
      schema: R.loginResponse,
      operationId: 'logIn',
      status: 200,
      example: { version: 7, account: 'acc-1', agentId: 'agent-1', previousAccount: null },
    },
    [400, 404, 409, 412, 413, 422],
  )
  @ApiZodBody(loginBody)
  @Access('full')
  @Post(['accounts/:acc/login', 'accounts/:acc/register'])
  @HttpCode(200)
  login(
    @Param('cid') cid: string,
    @Param('acc') acc: string,
    @Body() body: unknown,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    this.ids(cid, acc);
    const dto = parse(loginBody, body);
    const command = { type: 'LogInAccount', accountId: acc, agentId: dto.agentId } as const;
    return runCommand(this.commands, cid, command, meta, (r) => ({
      version: r.version,
      account: acc,
      agentId: dto.agentId,
      previousAccount: r.previousAccount,
    }));
  }

  @ApiRoute(
    "Log out: deletes this account's snapshots and unbinds its agent",
    {
      schema: R.logoutResponse,
      operationId: 'logOut',
      status: 200,
      example: { version: 8, account: 'acc-1', loggedOut: true },
    },
    [400, 404, 409, 412, 413, 422],
  )
  @Access('full')
  @Post('accounts/:acc/logout')
  @HttpCode(200)
  logout(
    @Param('cid') cid: string,
    @Param('acc') acc: string,
    @Body() body: unknown,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    this.ids(cid, acc);
    parse(emptyBody, body);
    return runCommand(this.commands, cid, { type: 'LogOutAccount', accountId: acc }, meta, (r) => ({
      version: r.version,
      account: acc,
      loggedOut: true,
    }));
  }

  @ApiRoute('Accounts of the campaign and their bound agents', {
    schema: R.accountsResponse,
    operationId: 'listAccounts',
    status: 200,
    example: { items: [{ account: 'acc-1', agentId: 'agent-1' }] },
  })
  @ApiZodQuery(asOfOnlyQuery)
  @Access('viewer')
  @Get('accounts')
  async accounts(@Param('cid') cid: string, @Query() query: unknown) {
    pathId(cid, 'campaign id');
    const q = parse(asOfOnlyQuery, query ?? {});
    const horizon = await this.campaigns.horizon(cid, asOfOf(q.asOf));
    if (q.asOf !== undefined) return { items: await this.timeline.accountsAt(cid, horizon.version) };
    return { items: await this.snapshots.accounts(cid) };
  }

  @ApiRoute('Configure a snapshot tool: title, fields, invalidatedBy, maxAgeTicks', {
    schema: R.toolRuleResponse,
    operationId: 'putSnapshotTool',
    status: 200,
    example: { tool: 'get_map', title: 'Galaxy map', fields: ['systems'], invalidatedBy: ['jump'], maxAgeTicks: 50 },
  })
  @ApiZodBody(toolRuleBody)
  @Access('full')
  @Put('snapshot-tools/:tool')
  async putToolRule(@Param('cid') cid: string, @Param('tool') tool: string, @Body() body: unknown) {
    pathId(cid, 'campaign id');
    pathId(tool, 'tool');
    const dto = parse(toolRuleBody, body);
    await this.campaigns.get(cid);
    return this.snapshots.putRule(cid, {
      tool,
      title: dto.title ?? null,
      fields: dto.fields ?? null,
      invalidatedBy: dto.invalidatedBy ?? null,
      maxAgeTicks: dto.maxAgeTicks ?? null,
    });
  }

  @ApiRoute('Configured snapshot tools', {
    schema: R.toolRulesResponse,
    operationId: 'listSnapshotTools',
    status: 200,
    example: {
      items: [{ tool: 'get_map', title: 'Galaxy map', fields: ['systems'], invalidatedBy: ['jump'], maxAgeTicks: 50 }],
    },
  })
  @Access('viewer')
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
