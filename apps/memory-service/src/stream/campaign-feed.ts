import { CampaignReader } from '@app/campaign';
import { DomainError } from '@app/common';
import {
  advance,
  CURRENT_TIMELINE,
  FeedCursor,
  FeedItem,
  mergePages,
  parseEventId,
  StreamName,
  toFeedItem,
} from './event-feed';

const other = (s: StreamName): StreamName => (s === 'game' ? 'memory' : 'game');

/** Reads a campaign's two streams as one feed in commit order (GET …/stream and GET …/timeline). */
export class CampaignFeed {
  constructor(private readonly campaigns: CampaignReader) {}

  /**
   * The cursor just after an event id: that stream at its version, the other stream at its version as of the
   * event's global position (a campaign's events commit in position order, see docs/stream.md).
   */
  async cursorAfter(campaignId: string, rawId: string | undefined): Promise<FeedCursor> {
    if (rawId === undefined) return { timeline: CURRENT_TIMELINE, game: 0, memory: 0 };
    const id = parseEventId(rawId);
    // Rewinds (DESIGN §10) will map an older timeline's id to its place here and send `rewound`.
    if (id.timeline !== CURRENT_TIMELINE) throw unknownId(rawId, `timeline ${id.timeline} does not exist`);
    if (id.version === 0) return { timeline: id.timeline, game: 0, memory: 0 };
    const [event] = await this.campaigns.events(campaignId, id.stream, { after: id.version - 1, limit: 1 });
    if (!event || event.version !== id.version)
      throw unknownId(rawId, `the ${id.stream} stream has no version ${id.version}`);
    const otherVersion = await this.campaigns.versionAt(campaignId, other(id.stream), event.position);
    return {
      timeline: id.timeline,
      [id.stream]: id.version,
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
      ).map((e) => toFeedItem(CURRENT_TIMELINE, stream, e));
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
