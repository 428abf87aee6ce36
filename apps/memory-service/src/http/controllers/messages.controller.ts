import { CampaignReader, RecordMessagesCommand } from '@app/campaign';
import { CLOCK, Clock } from '@app/common';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { LIMITS, messagesBody } from '../dto/campaign.dto';
import { idSchema, parse, pathId, queryInt } from '../validation';
import { markReplay, writeMeta } from '../write-context';

const listQuery = z.strictObject({
  after: queryInt(-1, 2_000_000_000).optional(),
  limit: queryInt(1, LIMITS.listLimit).optional(),
  locationId: idSchema.optional(),
});

@Controller('v1/campaigns/:cid/messages')
export class MessagesController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(CampaignReader) private readonly campaigns: CampaignReader,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post()
  @HttpCode(201)
  async record(@Param('cid') cid: string, @Body() body: unknown, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    pathId(cid, 'campaign id');
    const dto = parse(messagesBody, body);
    const out = await this.commands.execute(
      new RecordMessagesCommand(cid, { messages: dto.messages, now: this.clock.now().toISOString() }, writeMeta(req, cid, body), (r) => ({
        indexes: r.events.map((e) => e.data.index as number),
        version: r.version,
      })),
    );
    markReplay(reply, out.replayed);
    return out.body;
  }

  @Get()
  async list(@Param('cid') cid: string, @Query() query: unknown) {
    pathId(cid, 'campaign id');
    const q = parse(listQuery, query);
    await this.campaigns.get(cid);
    const items = await this.campaigns.messages(cid, { after: q.after, limit: q.limit ?? 100, locationId: q.locationId });
    return { items: items.map(({ version: _v, ...m }) => m) };
  }
}
