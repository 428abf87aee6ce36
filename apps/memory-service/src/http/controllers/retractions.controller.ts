import { Body, Controller, HttpCode, Inject, Param, Post, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { z } from 'zod';
import * as R from '../dto/responses';
import { ApiRoute, ApiTags, WRITE_ERRORS } from '../api-docs';
import { retractBody } from '../dto/campaign.dto';
import { idSchema } from '../validation';
import { RequestWriteMeta, runCommand, WriteMeta, WriteMetaInterceptor } from '../write-meta';
import { Access } from '../route-access';

/**
 * Retraction (DESIGN §10: swipe, regenerate, retcon). 202: the messages and everything built from them leave every
 * read at once; the worker revises or withdraws the affected memories afterwards.
 */
@ApiTags('timelines')
@Controller('v1/campaigns/:cid/messages')
@UseInterceptors(WriteMetaInterceptor)
export class RetractionsController {
  constructor(@Inject(CommandBus) private readonly commands: CommandBus) {}

  @Access('full')
  @Post('retract')
  @HttpCode(202)
  @ApiRoute(
    'Retract 1–500 messages, all or nothing (MESSAGE_NOT_FOUND 404, MESSAGE_RETRACTED 409); memories built ' +
      'from them are withheld at once and revised by the worker',
    { schema: R.retractResponse, operationId: 'retractMessages', status: 202, example: { version: 42, timeline: 1 } },
    WRITE_ERRORS,
  )
  retract(
    @Param('cid', { schema: idSchema }) cid: string,
    @Body({ schema: retractBody }) dto: z.infer<typeof retractBody>,
    @WriteMeta() meta: RequestWriteMeta,
  ) {
    const command = { type: 'RetractMessages', indexes: dto.indexes, reason: dto.reason ?? null } as const;
    return runCommand(this.commands, cid, command, meta, (r) => ({ version: r.version, timeline: r.timeline ?? 1 }));
  }
}
