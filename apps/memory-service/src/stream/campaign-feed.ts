import { CampaignReader, TimelineService } from '@app/campaign';
import { DomainError } from '@app/common';
import { advance, FeedCursor, FeedItem, FeedRewind, mapCursor, mergePages, parseEventId } from './event-feed';
import { StreamName, toFeedItem } from './event-feed';

const other = (s: StreamName): StreamName => (s === 'game' ? 'memory' : 'game');

/** Reads a campaign's two streams as one feed in commit order (GET …/stream and GET …/timeline). */
export class CampaignFeed {
  constructor(
    private readonly campaigns: CampaignReader,
    private readonly timelines: TimelineService,
  ) {}

  /** The campaign's timeline and its rewinds (DESIGN §10). */
  timeline(campaignId: string): Promise<{ timeline: number; rewinds: FeedRewind[] }> {
    return this.timelines.timelineOf(campaignId);
  }

  /**
   * The cursor just after an event id: that stream at its version, the other stream at its version as of the
   * event's global position (a campaign's events commit in position order, see docs/stream.md). An id of an
   * older timeline (DESIGN §10) keeps its timeline: the stream maps it through the rewinds since and says
   * `rewound` first; where the rewinds dropped its event, both streams are capped at what they kept.
   */
  async cursorAfter(campaignId: string, rawId: string | undefined): Promise<FeedCursor> {
    const { timeline, rewinds } = await this.timeline(campaignId);
    if (rawId === undefined) return { timeline, game: 0, memory: 0 };
    const id = parseEventId(rawId);
    if (id.timeline > timeline) throw unknownId(rawId, `timeline ${id.timeline} does not exist`);
    let version = id.version;
    if (id.timeline < timeline) {
      // Versions up to what the rewinds kept are the same events in both timelines; past that the event is gone.
      const kept = mapCursor({ timeline: id.timeline, game: Infinity, memory: Infinity }, timeline, rewinds).cursor;
      version = Math.min(version, kept[id.stream]);
    }
    if (version === 0) return { timeline: id.timeline, game: 0, memory: 0 };
    const [event] = await this.campaigns.events(campaignId, id.stream, { after: version - 1, limit: 1 });
    if (!event || event.version !== version)
      throw unknownId(rawId, `the ${id.stream} stream has no version ${version}`);
    const otherVersion = await this.campaigns.versionAt(campaignId, other(id.stream), event.position);
    return {
      timeline: id.timeline,
      [id.stream]: version,
      [other(id.stream)]: otherVersion,
    } as unknown as FeedCursor;
  }

  /** Up to `limit` events after the cursor, in commit order, and the cursor after them. */
  async after(
    campaignId: string,
    cursor: FeedCursor,
    limit: number,
  ): Promise<{ items: FeedItem[]; cursor: FeedCursor; more: boolean }> {
    const read = async (stream: StreamName) =>
      (await this.campaigns.events(campaignId, stream, { after: cursor[stream], limit })).map((e) =>
        toFeedItem(cursor.timeline, stream, e),
      );
    const [game, memory] = await Promise.all([read('game'), read('memory')]);
    const items = mergePages(game, memory, limit).slice(0, limit);
    return { items, cursor: advance(cursor, items), more: game.length >= limit || memory.length >= limit };
  }

  /** Up to `limit` events before an event id (default: the newest), oldest first: the timeline's older pages. */
  async before(campaignId: string, rawId: string | undefined, limit: number): Promise<FeedItem[]> {
    const { timeline } = await this.timeline(campaignId);
    let upper: { game: number; memory: number };
    if (rawId === undefined) {
      const heads = await this.campaigns.heads(campaignId);
      upper = heads ?? { game: 0, memory: 0 };
    } else {
      const id = parseEventId(rawId);
      const at = await this.cursorAfter(campaignId, rawId);
      upper = { ...at, [id.stream]: Math.max(0, id.version - 1) } as { game: number; memory: number };
    }
    const read = async (stream: StreamName) =>
      (
        await this.campaigns.events(campaignId, stream, {
          after: Math.max(0, upper[stream] - limit),
          until: upper[stream],
          limit,
        })
      ).map((e) => toFeedItem(timeline, stream, e));
    const [game, memory] = await Promise.all([read('game'), read('memory')]);
    // Mirror of mergePages: a full page may hide older events of its stream, so cut at its first event.
    let floor = -Infinity;
    if (game.length >= limit && upper.game > limit) floor = Math.max(floor, game[0].position);
    if (memory.length >= limit && upper.memory > limit) floor = Math.max(floor, memory[0].position);
    const merged = [...game, ...memory].filter((i) => i.position >= floor).sort((a, b) => a.position - b.position);
    return merged.slice(-limit);
  }
}

function unknownId(raw: string, why: string): DomainError {
  return new DomainError('invalid', 'INVALID_EVENT_ID', `event id ${raw} is not in this campaign: ${why}`);
}
