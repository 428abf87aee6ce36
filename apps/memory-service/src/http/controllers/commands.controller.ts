import { Body, Controller, HttpCode, Inject, Param, Post, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { z } from 'zod';
import * as R from '../dto/responses';
import { ApiRoute, ApiTags, WRITE_ERRORS } from '../api-docs';
import {
  changeLocationBody,
  completeObjectiveBody,
  completeQuestBody,
  endRoundBody,
  progressActBody,
  updateLocationStateBody,
} from '../dto/campaign.dto';
import { idSchema } from '../validation';
import { RequestWriteMeta, runCommand, versionOnly, WriteMeta, WriteMetaInterceptor } from '../write-meta';
import { Access } from '../route-access';

const ACCEPTED = {
  status: 202,
  example: { version: 12 },
  description: 'Accepted; memories follow asynchronously (see processedVersion)',
};

/** POST /v1/campaigns/:cid/commands/<name> → 202 {version}. */
@ApiTags('commands')
@Controller('v1/campaigns/:cid/commands')
@UseInterceptors(WriteMetaInterceptor)
export class CommandsController {
  constructor(@Inject(CommandBus) private readonly commands: CommandBus) {}

  @Access('full')
  @Post('change-location')
  @HttpCode(202)
  @ApiRoute(
    'Move the party; leaving a location records its location and NPC memories',
    { ...ACCEPTED, schema: R.versionOnly, operationId: 'changeLocation' },
    WRITE_ERRORS,
  )
  changeLocation(
    @Param('cid', { schema: idSchema }) cid: string,
    @Body({ schema: changeLocationBody }) dto: z.infer<typeof changeLocationBody>,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    return runCommand(this.commands, cid, { type: 'ChangeLocation', ...dto }, meta, versionOnly);
  }

  @Access('full')
  @Post('complete-objective')
  @HttpCode(202)
  @ApiRoute(
    'Complete a quest objective (world memory objective_completed)',
    { ...ACCEPTED, schema: R.versionOnly, operationId: 'completeObjective' },
    WRITE_ERRORS,
  )
  completeObjective(
    @Param('cid', { schema: idSchema }) cid: string,
    @Body({ schema: completeObjectiveBody }) dto: z.infer<typeof completeObjectiveBody>,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    return runCommand(this.commands, cid, { type: 'CompleteObjective', ...dto }, meta, versionOnly);
  }

  @Access('full')
  @Post('complete-quest')
  @HttpCode(202)
  @ApiRoute(
    'Complete a quest (world memory quest_completed)',
    { ...ACCEPTED, schema: R.versionOnly, operationId: 'completeQuest' },
    WRITE_ERRORS,
  )
  completeQuest(
    @Param('cid', { schema: idSchema }) cid: string,
    @Body({ schema: completeQuestBody }) dto: z.infer<typeof completeQuestBody>,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    return runCommand(this.commands, cid, { type: 'CompleteQuest', ...dto }, meta, versionOnly);
  }

  @Access('full')
  @Post('progress-act')
  @HttpCode(202)
  @ApiRoute(
    'Move the story to a new act (world memory act_progressed)',
    { ...ACCEPTED, schema: R.versionOnly, operationId: 'progressAct' },
    WRITE_ERRORS,
  )
  progressAct(
    @Param('cid', { schema: idSchema }) cid: string,
    @Body({ schema: progressActBody }) dto: z.infer<typeof progressActBody>,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    return runCommand(this.commands, cid, { type: 'ProgressAct', ...dto }, meta, versionOnly);
  }

  @Access('full')
  @Post('update-location-state')
  @HttpCode(202)
  @ApiRoute(
    'Change a danger level and/or complete an encounter (CLEARED and encounters are world memories)',
    { ...ACCEPTED, schema: R.versionOnly, operationId: 'updateLocationState' },
    WRITE_ERRORS,
  )
  updateLocationState(
    @Param('cid', { schema: idSchema }) cid: string,
    @Body({ schema: updateLocationStateBody }) dto: z.infer<typeof updateLocationStateBody>,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    return runCommand(this.commands, cid, { type: 'UpdateLocationState', ...dto }, meta, versionOnly);
  }

  @Access('full')
  @Post('end-round')
  @HttpCode(202)
  @ApiRoute(
    'End the current round (messages after it belong to the next round)',
    { ...ACCEPTED, schema: R.endRoundResponse, operationId: 'endRound', example: { version: 13, round: 2 } },
    WRITE_ERRORS,
  )
  endRound(
    @Param('cid', { schema: idSchema }) cid: string,
    @Body({ schema: endRoundBody }) dto: z.infer<typeof endRoundBody>,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    return runCommand(this.commands, cid, { type: 'EndRound', ...(dto ?? {}) }, meta, (r) => ({
      version: r.version,
      round: r.round,
    }));
  }
}
