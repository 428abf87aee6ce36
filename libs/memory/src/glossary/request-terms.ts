import type { StoredEvent } from '@app/event-store';

/** Requests whose glossary coining count is kept. */
const REQUESTS_KEPT = 1024;

/**
 * §13 MAX_NEW_TERMS_PER_REQUEST: the terms coined so far per request (campaign and correlation id — the request id on
 * every event of the request), kept across the worker's batches: a 500-message request spans three. The newest
 * REQUESTS_KEPT only; a restart forgets them (a request then coins at most the cap again).
 */
export class RequestTerms {
  private readonly counts = new Map<string, { coined: number }>();

  /** The count of the request that recorded `event` (an event without a correlation id is a request of its own). */
  of(campaignId: string, event: StoredEvent): { coined: number } {
    const key = `${campaignId}\n${event.metadata.correlationId ?? `@${event.version}`}`;
    let count = this.counts.get(key);
    if (!count) {
      count = { coined: 0 };
      this.counts.set(key, count);
      if (this.counts.size > REQUESTS_KEPT) this.counts.delete(this.counts.keys().next().value!);
    }
    return count;
  }
}
