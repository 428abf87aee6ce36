import { EventEmitter } from 'node:events';

/** Where a campaign's worker stands: the game version processed, in which timeline (§10). */
export interface ProgressMark {
  processed: number;
  timeline: number;
}

/** In-process signal that a campaign's worker checkpoint moved (read-your-writes waits). */
export class WorkerProgress {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  private readonly any = new Set<(campaignId: string) => void>();

  /** `timeline`: the checkpoint's (§10); waits started in another timeline stop at the next read. */
  processed(campaignId: string, version: number, timeline = 1): void {
    this.emitter.emit(campaignId, version, timeline);
    for (const listener of this.any) listener(campaignId);
  }

  /**
   * Calls `listener` after every checkpoint move of any campaign (the event stream's wake-up); returns the unsubscribe.
   */
  onProcessed(listener: (campaignId: string) => void): () => void {
    this.any.add(listener);
    return () => this.any.delete(listener);
  }

  /**
   * Resolves once `read()` reports ≥ minVersion or `waitMs` passed. Polls as a fallback, since
   * another replica may be the one doing the work. With `timeline` (§10), also once `read()` reports another
   * timeline: after a rewind, `minVersion` of the old one means nothing (the caller answers with the new one).
   */
  async waitFor(
    campaignId: string,
    minVersion: number,
    waitMs: number,
    read: () => Promise<number | ProgressMark>,
    pollMs = 100,
    timeline?: number,
  ): Promise<number> {
    const deadline = Date.now() + waitMs;
    const mark = async (): Promise<ProgressMark> => {
      const r = await read();
      return typeof r === 'number' ? { processed: r, timeline: timeline ?? 1 } : r;
    };
    let now = await mark();
    const moved = () => timeline !== undefined && now.timeline !== timeline;
    while (now.processed < minVersion && !moved() && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.emitter.off(campaignId, done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(1, Math.min(pollMs, deadline - Date.now())));
        this.emitter.on(campaignId, done);
      });
      now = await mark();
    }
    return now.processed;
  }
}
