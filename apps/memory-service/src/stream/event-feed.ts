import { DomainError } from '@app/common';
import type { StoredEvent } from '@app/event-store';

/** The two streams of a campaign (DESIGN §1). */
export type StreamName = 'game' | 'memory';

/**
 * Where a listener stands: the last version it has of each stream. One version per stream (not one
 * global position) because each stream's versions become visible strictly in order, whatever the
 * commit order between the two streams.
 */
export interface FeedCursor {
  timeline: number;
  game: number;
  memory: number;
}

/** What the stream sends for one committed event (DESIGN §11). */
export interface FeedItem {
  id: string;
  position: number;
  stream: StreamName;
  version: number;
  type: string;
  data: unknown;
  triggerVersion?: number;
  recordedAt: string;
}

/** A rewind as the stream maps cursors through it (DESIGN §10; `campaign_timelines`). */
export interface FeedRewind {
  timeline: number;
  fromVersion: number;
  toVersion: number;
  memoryVersion: number;
}

/**
 * A cursor of an older timeline in the current one: each rewind since caps it at what the rewind kept (versions up
 * to there are the same events in both timelines). Returns the rewinds crossed, oldest first, for `rewound`
 * notices.
 */
export function mapCursor(
  cursor: FeedCursor,
  timeline: number,
  rewinds: FeedRewind[],
): { cursor: FeedCursor; crossed: FeedRewind[] } {
  const crossed = rewinds.filter((r) => r.timeline > cursor.timeline && r.timeline <= timeline);
  let { game, memory } = cursor;
  for (const r of crossed) {
    game = Math.min(game, r.toVersion);
    memory = Math.min(memory, r.memoryVersion);
  }
  return { cursor: { timeline, game, memory }, crossed };
}

const EVENT_ID = /^([1-9][0-9]{0,8}):(game|memory):([0-9]{1,10})$/;

/** `<timeline>:<stream>:<version>`. */
export const eventId = (timeline: number, stream: StreamName, version: number) => `${timeline}:${stream}:${version}`;

/** Parses a Last-Event-ID / `after` value; version 0 means "before the first event of that stream". */
export function parseEventId(raw: string): { timeline: number; stream: StreamName; version: number } {
  const m = EVENT_ID.exec(raw.trim());
  if (!m || Number(m[3]) > 2_000_000_000) {
    throw new DomainError(
      'invalid',
      'INVALID_EVENT_ID',
      'an event id is <timeline>:<game|memory>:<version>, e.g. 1:game:12',
    );
  }
  return { timeline: Number(m[1]), stream: m[2] as StreamName, version: Number(m[3]) };
}

/** The item a stored event becomes on the stream. */
export function toFeedItem(timeline: number, stream: StreamName, e: StoredEvent): FeedItem {
  const trigger = (e.data as { triggerVersion?: unknown }).triggerVersion;
  return {
    id: eventId(timeline, stream, e.version),
    position: e.position,
    stream,
    version: e.version,
    type: e.type,
    data: e.data,
    ...(stream === 'memory' && typeof trigger === 'number' ? { triggerVersion: trigger } : {}),
    recordedAt: e.recordedAt,
  };
}

/**
 * Merges one page of each stream (each read with the same `limit`, oldest first) into commit order.
 * A stream whose page came back full may have more events below the other page's tail, so the merge
 * stops at the last event of such a page: what is returned is gap-free for both cursors.
 */
export function mergePages(game: FeedItem[], memory: FeedItem[], limit: number): FeedItem[] {
  let horizon = Infinity;
  if (game.length >= limit) horizon = Math.min(horizon, game[game.length - 1].position);
  if (memory.length >= limit) horizon = Math.min(horizon, memory[memory.length - 1].position);
  return [...game, ...memory].filter((i) => i.position <= horizon).sort((a, b) => a.position - b.position);
}

/** The cursor after a listener has received `items`. */
export function advance(cursor: FeedCursor, items: FeedItem[]): FeedCursor {
  const next = { ...cursor };
  for (const i of items) next[i.stream] = Math.max(next[i.stream], i.version);
  return next;
}

/** One SSE frame: `id`, `event`, `data` (JSON on one line, so no field splitting is needed). */
export function sseFrame(item: FeedItem): string {
  const { id, stream, version, type, data, triggerVersion, recordedAt } = item;
  const payload = JSON.stringify({
    stream,
    version,
    type,
    data,
    ...(triggerVersion === undefined ? {} : { triggerVersion }),
    recordedAt,
  });
  return `id: ${id}\nevent: ${type}\ndata: ${payload}\n\n`;
}

/** A notice that is not a stored event: cutoff, rewound, deleted. */
export function sseNotice(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
