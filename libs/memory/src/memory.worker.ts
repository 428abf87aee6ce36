import { CampaignReader } from '@app/campaign';
import { Database } from '@app/database';
import { EventStore } from '@app/event-store';
import { Summarizer } from '@app/summarizer';
import { CheckpointStore } from './checkpoint/checkpoint.store';
import { CampaignDrain } from './drain';
import { MemoryProjector } from './memory.projector';
import { CampaignLease, CampaignOwnership, SingleProcessOwnership } from './ownership/campaign-ownership.port';
import { WorkerProgress } from './progress';
import { usageObserver } from './usage-observer';
import { WorkerLogger, WorkerOptions } from './worker-options';

export type { WorkerLogger, WorkerOptions } from './worker-options';

/**
 * Least time between the starts of two drains of one campaign, ms. A wake sooner than that waits for the rest:
 * under a stream of writes one drain then covers several commit groups, so its fixed cost (checkpoint, stream heads,
 * the read of new events, the checkpoint's move) is paid once per this period, not once per group (issue 33). A
 * campaign drained less recently than this is drained at once.
 */
export const DRAIN_GAP_MS = 20;

/**
 * Turns game events into memories (DESIGN §1–2): the scheduler. Driven by each campaign's durable checkpoint;
 * `wake` only says "look again". Per campaign strictly in order, across campaigns in parallel (MEMORY_CONCURRENCY);
 * each run claims the campaign and hands it to a drain (drain.ts), which runs the triggers (triggers/).
 */
export class MemoryWorker {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly running = new Set<string>();
  private readonly again = new Set<string>();
  /** When each campaign's last drain started (performance.now()), for DRAIN_GAP_MS; stale entries are pruned. */
  private readonly lastStart = new Map<string, number>();
  /** Wakes held back by DRAIN_GAP_MS, with the timer that releases each. */
  private readonly deferred = new Map<string, NodeJS.Timeout>();
  private readonly active = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  /** Per running claim: `abandon` aborts it (a rewound or deleted campaign's summary in flight). */
  private readonly claims = new Map<string, AbortController>();
  private stopped = false;
  private readonly drainer: CampaignDrain;
  private readonly checkpoints: CheckpointStore;

  constructor(
    db: Database,
    store: EventStore,
    private readonly reader: CampaignReader,
    projector: MemoryProjector,
    summarizer: Summarizer,
    progress: WorkerProgress,
    private readonly logger: WorkerLogger,
    private readonly options: WorkerOptions,
    /** One replica per campaign on PostgreSQL (§9); SQLite's single process owns everything. */
    private readonly ownership: CampaignOwnership = new SingleProcessOwnership(),
  ) {
    // §12: the usage ledger observes the drain's model calls (the drain commits, the ledger records).
    const calls = usageObserver(options, summarizer, logger);
    const deps = { db, store, reader, projector, summarizer, progress, logger, options, ownership, calls };
    this.drainer = new CampaignDrain(deps, this.abort.signal);
    this.checkpoints = new CheckpointStore(db);
  }

  /** Catch up every campaign whose checkpoint is behind (boot, or a poll). */
  async catchUp(): Promise<void> {
    for (const id of (await this.checkpoints.pending(await this.reader.versions())).keys()) this.wake(id);
  }

  /**
   * A poll's hint that the campaign is behind: ignored while it runs, since its drain re-reads the
   * campaign's version before letting go (a wake would only cost another claim, read and release).
   */
  nudge(campaignId: string): void {
    if (!this.running.has(campaignId)) this.wake(campaignId);
  }

  wake(campaignId: string): void {
    if (this.stopped) return;
    if (this.running.has(campaignId)) {
      this.again.add(campaignId);
      return;
    }
    if (this.queued.has(campaignId) || this.deferred.has(campaignId)) return;
    const wait = (this.lastStart.get(campaignId) ?? -Infinity) + this.gap - performance.now();
    if (wait > 0) {
      const timer = setTimeout(() => {
        this.deferred.delete(campaignId);
        this.wake(campaignId);
      }, wait);
      this.deferred.set(campaignId, timer);
      return;
    }
    this.queued.add(campaignId);
    this.queue.push(campaignId);
    this.pump();
  }

  /** Resolves when no campaign is queued or running (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.active.size > 0 || this.queue.length > 0 || this.deferred.size > 0) {
      await Promise.race([...this.active, new Promise((r) => setTimeout(r, 5))]);
    }
  }

  /** False once stop() began (readiness). */
  isRunning(): boolean {
    return !this.stopped;
  }

  /**
   * DESIGN §10: the campaign was rewound — its claim in flight, if any, stops (its model call is abandoned; the
   * checkpoint's timeline fence is what makes it commit nothing) and the campaign is looked at again.
   */
  abandon(campaignId: string): void {
    this.claims.get(campaignId)?.abort();
    this.wake(campaignId);
  }

  /** DESIGN §10: the campaign was deleted — stop its claim and never queue it again for what was pending. */
  forget(campaignId: string): void {
    this.claims.get(campaignId)?.abort();
    this.again.delete(campaignId);
    this.undefer(campaignId);
    if (this.queued.delete(campaignId)) this.queue.splice(this.queue.indexOf(campaignId), 1);
  }

  /** Abandons in-flight summaries without advancing anything and waits for the loops to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.length = 0;
    this.queued.clear();
    for (const id of [...this.deferred.keys()]) this.undefer(id);
    this.abort.abort();
    await Promise.allSettled([...this.active]);
  }

  private pump(): void {
    while (!this.stopped && this.active.size < this.options.concurrency && this.queue.length > 0) {
      const id = this.queue.shift()!;
      this.queued.delete(id);
      this.running.add(id);
      this.started(id);
      const run = this.own(id)
        .catch((err) => {
          this.logger.error(`memory worker failed for campaign ${id}: ${(err as Error).message}`, { campaignId: id });
        })
        .finally(() => {
          this.running.delete(id);
          this.active.delete(run);
          if (this.again.delete(id)) this.wake(id);
          this.pump();
        });
      this.active.add(run);
    }
  }

  private get gap(): number {
    return this.options.drainGapMs ?? DRAIN_GAP_MS;
  }

  private undefer(campaignId: string): void {
    clearTimeout(this.deferred.get(campaignId));
    this.deferred.delete(campaignId);
  }

  /** Notes a drain's start for DRAIN_GAP_MS; entries older than the gap say nothing and go when the map grows. */
  private started(campaignId: string): void {
    const now = performance.now();
    if (this.lastStart.size >= 1024)
      for (const [id, at] of this.lastStart) if (now - at >= this.gap) this.lastStart.delete(id);
    this.lastStart.delete(campaignId);
    this.lastStart.set(campaignId, now);
  }

  /** Claims the campaign, drains one batch, lets go; a campaign another replica holds is its business. */
  private async own(campaignId: string): Promise<void> {
    const lease = await this.ownership.acquire(campaignId);
    if (!lease) return;
    const claim = new AbortController();
    this.claims.set(campaignId, claim);
    try {
      // One batch per claim, then back of the queue: a busy campaign never starves the others.
      // The ownership's own fields (a lease epoch) are read through the prototype; only the signal is ours too.
      const signal = AbortSignal.any([lease.signal, claim.signal]);
      const abandonable: CampaignLease = Object.create(lease, { signal: { value: signal } });
      if (await this.drainer.drain(campaignId, abandonable)) this.again.add(campaignId);
    } finally {
      this.claims.delete(campaignId);
      await this.ownership.release(lease);
    }
  }
}
