import { CampaignWrite, ChangeLocationCommand, CompleteObjectiveCommand, CompleteQuestCommand, EndRoundCommand, ProgressActCommand, UpdateLocationStateCommand } from '@app/campaign';
import { Body, Controller, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import * as R from '../dto/responses';
import { ApiRoute, ApiTags, WRITE_ERRORS } from '../api-docs';
import { changeLocationBody, completeObjectiveBody, completeQuestBody, emptyBody, progressActBody, updateLocationStateBody } from '../dto/campaign.dto';
import { idSchema } from '../validation';
import { markReplay, writeMeta } from '../write-context';

const ACCEPTED = { status: 202, example: { version: 12 }, description: 'Accepted; memories follow asynchronously (see processedVersion)' };

/** POST /v1/campaigns/:cid/commands/<name> → 202 {version}. */
@ApiTags('commands')
@Controller('v1/campaigns/:cid/commands')
export class CommandsController {
  constructor(@Inject(CommandBus) private readonly commands: CommandBus) {}

  private async dispatch(command: CampaignWrite<unknown>, reply: FastifyReply) {
    const out = await this.commands.execute(command);
    markReplay(reply, out.replayed);
    return out.body;
  }

  @Post('change-location')
  @HttpCode(202)
  @ApiRoute('Move the party; leaving a location records its location and NPC memories', { ...ACCEPTED, schema: R.versionOnly, operationId: 'changeLocation' }, WRITE_ERRORS)
  changeLocation(
    @Param('cid', { schema: idSchema }) cid: string,
    @Body({ schema: changeLocationBody }) dto: z.infer<typeof changeLocationBody>,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.dispatch(new ChangeLocationCommand(cid, dto, writeMeta(req, cid, req.body)), reply);
  }

  @Post('complete-objective')
  @HttpCode(202)
  @ApiRoute('Complete a quest objective (world memory objective_completed)', { ...ACCEPTED, schema: R.versionOnly, operationId: 'completeObjective' }, WRITE_ERRORS)
  completeObjective(
    @Param('cid', { schema: idSchema }) cid: string,
    @Body({ schema: completeObjectiveBody }) dto: z.infer<typeof completeObjectiveBody>,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.dispatch(new CompleteObjectiveCommand(cid, dto, writeMeta(req, cid, req.body)), reply);
  }

  @Post('complete-quest')
  @HttpCode(202)
  @ApiRoute('Complete a quest (world memory quest_completed)', { ...ACCEPTED, schema: R.versionOnly, operationId: 'completeQuest' }, WRITE_ERRORS)
  completeQuest(
    @Param('cid', { schema: idSchema }) cid: string,
    @Body({ schema: completeQuestBody }) dto: z.infer<typeof completeQuestBody>,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.dispatch(new CompleteQuestCommand(cid, dto, writeMeta(req, cid, req.body)), reply);
  }

  @Post('progress-act')
  @HttpCode(202)
  @ApiRoute('Move the story to a new act (world memory act_progressed)', { ...ACCEPTED, schema: R.versionOnly, operationId: 'progressAct' }, WRITE_ERRORS)
  progressAct(
    @Param('cid', { schema: idSchema }) cid: string,
    @Body({ schema: progressActBody }) dto: z.infer<typeof progressActBody>,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.dispatch(new ProgressActCommand(cid, dto, writeMeta(req, cid, req.body)), reply);
  }

  @Post('update-location-state')
  @HttpCode(202)
  @ApiRoute('Change a danger level and/or complete an encounter (CLEARED and encounters are world memories)', { ...ACCEPTED, schema: R.versionOnly, operationId: 'updateLocationState' }, WRITE_ERRORS)
  updateLocationState(
    @Param('cid', { schema: idSchema }) cid: string,
    @Body({ schema: updateLocationStateBody }) dto: z.infer<typeof updateLocationStateBody>,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.dispatch(new UpdateLocationStateCommand(cid, dto, writeMeta(req, cid, req.body)), reply);
  }

  @Post('end-round')
  @HttpCode(202)
  @ApiRoute('End the current round (messages after it belong to the next round)', { ...ACCEPTED, schema: R.endRoundResponse, operationId: 'endRound', example: { version: 13, round: 2 } }, WRITE_ERRORS)
  endRound(
    @Param('cid', { schema: idSchema }) cid: string,
    @Body({ schema: emptyBody }) _dto: unknown,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.dispatch(new EndRoundCommand(cid, {}, writeMeta(req, cid, req.body), (r) => ({ version: r.version, round: r.state.round })), reply);
  }
}
