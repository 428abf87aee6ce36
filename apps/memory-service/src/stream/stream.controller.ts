import { CampaignReader } from '@app/campaign';
import { DomainError, notFound } from '@app/common';
import { Controller, Get, Headers, Inject, Param, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { ApiHeader, ApiRoute, ApiTags, ApiZodQuery } from '../http/api-docs';
import * as R from '../http/dto/responses';
import { idSchema, queryInt } from '../http/validation';
import { eventId } from './event-feed';
import { StreamHub } from './stream-hub';
import { Access } from '../http/route-access';

const eventIdParam = z.string().min(1).max(64);

export const streamQuery = z.strictObject({
  /** Resume after this event id; the Last-Event-ID header, when sent, wins (it is the browser's reconnect). */
  after: eventIdParam.optional(),
});

export const timelineQuery = z.strictObject({
  before: eventIdParam.optional(),
  limit: queryInt(1, 500).optional(),
});

const ITEM_EXAMPLE = {
  id: '1:memory:3',
  stream: 'memory',
  version: 3,
  type: 'MemoryRecorded',
  data: { scope: 'location', subjectId: 'tavern', summary: 'Mira sold the party a map.', triggerVersion: 9 },
  triggerVersion: 9,
  recordedAt: '2026-11-23T07:28:00.000Z',
};

const SSE_EXAMPLE_DATA = {
  stream: 'memory',
  version: 3,
  type: 'MemoryRecorded',
  data: ITEM_EXAMPLE.data,
  triggerVersion: 9,
  recordedAt: ITEM_EXAMPLE.recordedAt,
};

@ApiTags('stream')
@Controller('v1/campaigns/:cid')
export class StreamController {
  constructor(
    @Inject(StreamHub) private readonly hub: StreamHub,
    @Inject(CampaignReader) private readonly campaigns: CampaignReader,
  ) {}

  @Access('full')
  @Get('stream')
  @ApiZodQuery(streamQuery)
  @ApiHeader({
    name: 'Last-Event-ID',
    required: false,
    description: 'Resume after this event id (<timeline>:<game|memory>:<version>)',
  })
  @ApiRoute('Server-Sent Events of both streams in commit order (see docs/stream.md)', {
    status: 200,
    operationId: 'streamEvents',
    mediaType: 'text/event-stream',
    description: 'text/event-stream',
    example: `id: 1:memory:3\nevent: MemoryRecorded\ndata: ${JSON.stringify(SSE_EXAMPLE_DATA)}\n\n`,
  })
  async stream(
    @Param('cid', { schema: idSchema }) cid: string,
    @Query({ schema: streamQuery }) q: z.infer<typeof streamQuery>,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res() reply: FastifyReply,
  ) {
    if (!this.hub.accepting)
      throw new DomainError(
        'unavailable',
        'SHUTTING_DOWN',
        'the service is shutting down; reconnect with Last-Event-ID',
      );
    await this.exists(cid);
    const resumeAfter = lastEventId !== undefined && lastEventId !== '' ? lastEventId : q.after;
    const cursor = await this.hub.feed.cursorAfter(cid, resumeAfter);
    // From here on the response is ours: Fastify neither serialises nor ends it.
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // Proxies such as nginx would otherwise hold events back in their buffer.
      'x-accel-buffering': 'no',
      'x-request-id': String(reply.request.id),
    });
    // HEAD (routed here by Fastify as the GET's twin) has no body to stream: headers, then done. Held open, it
    // never answered — what stalled `npm run fuzz` now and then.
    if (reply.request.method === 'HEAD') return void reply.raw.end();
    reply.raw.write(`retry: 2000\n: lorekeeper stream of ${cid}\n\n`);
    this.hub.open(cid, cursor, resumeAfter ?? eventId(cursor.timeline, 'game', 0), reply.raw);
  }

  @Access('full')
  @Get('timeline')
  @ApiZodQuery(timelineQuery)
  @ApiRoute('Both streams as one page in commit order, the `limit` events before `before` (default: the newest)', {
    status: 200,
    schema: R.timelineResponse,
    operationId: 'getTimeline',
    example: { items: [ITEM_EXAMPLE] },
  })
  async timeline(
    @Param('cid', { schema: idSchema }) cid: string,
    @Query({ schema: timelineQuery }) q: z.infer<typeof timelineQuery>,
  ) {
    await this.exists(cid);
    const items = await this.hub.feed.before(cid, q.before, q.limit ?? 50);
    return { items: items.map(({ position: _position, ...item }) => item) };
  }

  /** One row read: opening a stream of a long campaign must not load its state document. */
  private async exists(cid: string): Promise<void> {
    if (!(await this.campaigns.heads(cid))) throw notFound('CAMPAIGN_NOT_FOUND', `campaign ${cid} not found`);
  }
}
