import {
  AppendedHandler,
  AppendedListeners,
  CampaignEventsAppended,
  CampaignReader,
  TimelineService,
} from '@app/campaign';
import { APP_CONFIG, AppConfig } from '@app/common';
import { WorkerProgress } from '@app/memory';
import { REPLICA_COORDINATOR, ReplicaCoordinator } from '@app/replica';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { CampaignFeed } from './campaign-feed';
import { eventId, FeedCursor, mapCursor, sseFrame, sseNotice } from './event-feed';

/** Events read per page and per stream: with the socket's own buffer, all a listener ever holds. */
export const STREAM_PAGE = 100;

/** One open stream: pumps pages from its cursor while its socket keeps up. */
class Listener {
  private running = false;
  private again = false;
  private closed = false;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    readonly campaignId: string,
    private cursor: FeedCursor,
    private lastSent: string,
    private readonly res: ServerResponse,
    private readonly feed: CampaignFeed,
    private readonly reader: CampaignReader,
    private readonly options: { heartbeatMs: number; stallMs: number },
    private readonly onClose: (l: Listener) => void,
    private readonly logger: Logger,
  ) {
    this.heartbeat = setInterval(
      () => this.res.writableNeedDrain || this.res.write(': heartbeat\n\n'),
      options.heartbeatMs,
    );
    this.heartbeat.unref();
    res.on('close', () => this.close());
  }

  /** New events may exist: pump now, or once more after the running pump. */
  kick(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.pump()
      .catch((err) => {
        this.logger.warn(`stream of campaign ${this.campaignId} failed: ${(err as Error).message}`);
        this.end(sseNotice('error', { reason: 'read-failed', lastEventId: this.lastId() }));
      })
      .finally(() => {
        this.running = false;
        if (this.again && !this.closed) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async pump(): Promise<void> {
    for (;;) {
      this.again = false;
      // One read per wake-up: the heads with the timeline; the rewinds only when the timeline moved.
      const heads = await this.reader.headsInTimeline(this.campaignId);
      if (this.closed) return;
      if (!heads) return this.end(sseNotice('deleted', { campaignId: this.campaignId, lastEventId: this.lastId() }));
      if (heads.timeline !== this.cursor.timeline) {
        // The heads belong to the new timeline: map the cursor first, then read them again against it.
        await this.followRewinds();
        continue;
      }
      if (heads.game <= this.cursor.game && heads.memory <= this.cursor.memory) {
        if (!this.again) return;
        continue;
      }
      const page = await this.feed.after(this.campaignId, this.cursor, STREAM_PAGE);
      // The row said there is more but nothing is readable yet: wait for the next wake-up rather than spin.
      if (page.items.length === 0) return;
      for (const item of page.items) {
        if (this.closed) return;
        this.res.write(sseFrame(item));
        this.cursor = { ...this.cursor, [item.stream]: item.version };
        this.lastSent = item.id;
        // A socket that does not take the page is waited for, never buffered past one page.
        if (this.res.writableNeedDrain && !(await this.drained())) {
          return this.end(
            sseNotice('cutoff', {
              reason: 'slow-listener',
              lastEventId: this.lastId(),
              stalledMs: this.options.stallMs,
            }),
          );
        }
      }
    }
  }

  /**
   * DESIGN §10: the campaign was rewound since the cursor's timeline (here or on another replica) — say so, one
   * `rewound` per rewind, and go on from what the rewinds kept, in the new timeline.
   */
  private async followRewinds(): Promise<void> {
    const { timeline, rewinds } = await this.feed.timeline(this.campaignId);
    if (timeline === this.cursor.timeline || this.closed) return;
    const { cursor, crossed } = mapCursor(this.cursor, timeline, rewinds);
    for (const r of crossed)
      this.res.write(
        sseNotice('rewound', { timeline: r.timeline, fromVersion: r.fromVersion, toVersion: r.toVersion }),
      );
    this.cursor = cursor;
    this.lastSent = eventId(cursor.timeline, 'game', cursor.game);
  }

  private drained(): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.res.off('drain', onDrain);
        this.res.off('close', onClose);
        resolve(ok);
      };
      const onDrain = () => done(true);
      const onClose = () => done(false);
      const timer = setTimeout(() => done(false), this.options.stallMs);
      this.res.once('drain', onDrain);
      this.res.once('close', onClose);
    });
  }

  /** The id a listener resumes after: the last event it was sent (or the one it resumed after). */
  private lastId(): string {
    return this.lastSent;
  }

  /** Writes a last notice (over the buffer limit by that one frame at most) and ends the response. */
  end(last?: string): void {
    if (this.closed) return;
    if (last && !this.res.destroyed) this.res.end(last);
    else this.res.end();
    this.close();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    this.onClose(this);
  }
}

/**
 * Open event streams and what wakes them (DESIGN §11): this process's writes and worker commits, the other
 * replicas' NOTIFY, and a poll every STREAM_POLL_MS as the fallback (memory events of other replicas).
 */
@Injectable()
export class StreamHub implements BeforeApplicationShutdown, OnModuleDestroy {
  private readonly logger = new Logger('stream');
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly poll: NodeJS.Timeout;
  private readonly unsubscribe: Array<() => void> = [];
  private closing = false;
  readonly feed: CampaignFeed;

  constructor(
    @Inject(CampaignReader) private readonly reader: CampaignReader,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(WorkerProgress) progress: WorkerProgress,
    @Inject(REPLICA_COORDINATOR) coordinator: ReplicaCoordinator | null,
    @Inject(TimelineService) timelines: TimelineService,
  ) {
    this.feed = new CampaignFeed(reader, timelines);
    this.unsubscribe.push(progress.onProcessed((id) => this.wake(id)));
    // A rewind or delete here: the campaign's streams say `rewound` or `deleted` at once (other replicas: NOTIFY).
    timelines.onChange((c) => this.wake(c.campaignId));
    if (coordinator) this.unsubscribe.push(coordinator.observe((id) => this.wake(id)));
    this.poll = setInterval(() => {
      for (const id of this.listeners.keys()) this.wake(id);
    }, config.streamPollMs);
    this.poll.unref();
  }

  get accepting(): boolean {
    return !this.closing;
  }

  /** Starts streaming a campaign to `res` from `cursor` (headers already written). */
  open(campaignId: string, cursor: FeedCursor, resumedAfter: string, res: ServerResponse): void {
    const listener = new Listener(
      campaignId,
      cursor,
      resumedAfter,
      res,
      this.feed,
      this.reader,
      { heartbeatMs: this.config.streamHeartbeatMs, stallMs: this.config.streamStallMs },
      (l) => this.drop(l),
      this.logger,
    );
    const set = this.listeners.get(campaignId) ?? new Set<Listener>();
    set.add(listener);
    this.listeners.set(campaignId, set);
    listener.kick();
  }

  wake(campaignId: string): void {
    for (const l of this.listeners.get(campaignId) ?? []) l.kick();
  }

  /** Open streams (for /metrics and tests). */
  count(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  private drop(l: Listener): void {
    const set = this.listeners.get(l.campaignId);
    set?.delete(l);
    if (set?.size === 0) this.listeners.delete(l.campaignId);
  }

  /** Shutdown: end every stream, so HTTP can close; clients resume with Last-Event-ID elsewhere or later. */
  beforeApplicationShutdown(): void {
    this.closing = true;
    clearInterval(this.poll);
    for (const set of [...this.listeners.values()]) for (const l of [...set]) l.end();
  }

  onModuleDestroy(): void {
    for (const u of this.unsubscribe) u();
  }
}

/** This process's game writes wake the streams of that campaign at once. */
@Injectable()
export class WakeStreamsHandler extends AppendedHandler {
  constructor(
    @Inject(StreamHub) private readonly hub: StreamHub,
    @Inject(AppendedListeners) appended: AppendedListeners,
  ) {
    super(appended);
  }
  handle(event: CampaignEventsAppended): void {
    this.hub.wake(event.campaignId);
  }
}
