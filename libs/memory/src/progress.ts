import { EventEmitter } from 'node:events';

/** In-process signal that a campaign's worker checkpoint moved (read-your-writes waits). */
export class WorkerProgress {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  private readonly any = new Set<(campaignId: string) => void>();

  processed(campaignId: string, version: number): void {
    this.emitter.emit(campaignId, version);
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
   * another replica may be the one doing the work.
   */
  async waitFor(
    campaignId: string,
    minVersion: number,
    waitMs: number,
    read: () => Promise<number>,
    pollMs = 100,
  ): Promise<number> {
    const deadline = Date.now() + waitMs;
    let current = await read();
    while (current < minVersion && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.emitter.off(campaignId, done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(1, Math.min(pollMs, deadline - Date.now())));
        this.emitter.on(campaignId, done);
      });
      current = await read();
    }
    return current;
  }
}
