import { CampaignWrite, ChangeLocationCommand, CompleteObjectiveCommand, CompleteQuestCommand, EndRoundCommand, ProgressActCommand, UpdateLocationStateCommand, WriteMeta } from '@app/campaign';
import { Body, Controller, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { changeLocationBody, completeObjectiveBody, completeQuestBody, emptyBody, progressActBody, updateLocationStateBody } from '../dto/campaign.dto';
import { parse, pathId } from '../validation';
import { markReplay, writeMeta } from '../write-context';

type Make = (cid: string, payload: any, meta: WriteMeta) => CampaignWrite<unknown>;

/** POST /v1/campaigns/:cid/commands/<name> → 202 {version}. */
@Controller('v1/campaigns/:cid/commands')
export class CommandsController {
  constructor(@Inject(CommandBus) private readonly commands: CommandBus) {}

  private async dispatch(cid: string, schema: z.ZodType, body: unknown, req: FastifyRequest, reply: FastifyReply, make: Make) {
    pathId(cid, 'campaign id');
    const payload = parse(schema, body) ?? {};
    const out = await this.commands.execute(make(cid, payload, writeMeta(req, cid, body)));
    markReplay(reply, out.replayed);
    return out.body;
  }

  @Post('change-location')
  @HttpCode(202)
  changeLocation(@Param('cid') cid: string, @Body() body: unknown, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.dispatch(cid, changeLocationBody, body, req, reply, (c, p, m) => new ChangeLocationCommand(c, p, m));
  }

  @Post('complete-objective')
  @HttpCode(202)
  completeObjective(@Param('cid') cid: string, @Body() body: unknown, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.dispatch(cid, completeObjectiveBody, body, req, reply, (c, p, m) => new CompleteObjectiveCommand(c, p, m));
  }

  @Post('complete-quest')
  @HttpCode(202)
  completeQuest(@Param('cid') cid: string, @Body() body: unknown, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.dispatch(cid, completeQuestBody, body, req, reply, (c, p, m) => new CompleteQuestCommand(c, p, m));
  }

  @Post('progress-act')
  @HttpCode(202)
  progressAct(@Param('cid') cid: string, @Body() body: unknown, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.dispatch(cid, progressActBody, body, req, reply, (c, p, m) => new ProgressActCommand(c, p, m));
  }

  @Post('update-location-state')
  @HttpCode(202)
  updateLocationState(@Param('cid') cid: string, @Body() body: unknown, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.dispatch(cid, updateLocationStateBody, body, req, reply, (c, p, m) => new UpdateLocationStateCommand(c, p, m));
  }

  @Post('end-round')
  @HttpCode(202)
  endRound(@Param('cid') cid: string, @Body() body: unknown, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.dispatch(cid, emptyBody, body, req, reply, (c, _p, m) => new EndRoundCommand(c, {}, m, (r) => ({ version: r.version, round: r.state.round })));
  }
}
