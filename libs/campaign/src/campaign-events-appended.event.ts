import { StoredEvent } from '@app/event-store';
import { OnModuleInit } from '@nestjs/common';

/** After a commit that appended game events; only wakes (the worker's checkpoint is the truth). */
export class CampaignEventsAppended {
  constructor(
    readonly campaignId: string,
    readonly version: number,
  ) {}
}

export type AppendedListener = (event: CampaignEventsAppended) => void;

/**
 * Who is told of each commit that appended (the memory worker, the event streams, the other replicas), called in
 * turn. Plain calls instead of the CQRS EventBus, whose publish ran every write through rxjs (a subject, a filter
 * and a deferred observable per handler) for three synchronous wake-ups. A listener that throws is reported and
 * the others still run: the write has committed.
 */
export class AppendedListeners {
  private readonly listeners: AppendedListener[] = [];

  constructor(private readonly onError: (err: unknown) => void = () => undefined) {}

  /** Registers a listener (at module init, before any write). */
  add(listener: AppendedListener): void {
    this.listeners.push(listener);
  }

  /** After the commit of `events` (at least one), appended to the game stream of `campaignId`. */
  readonly publish = (campaignId: string, events: StoredEvent[]): void => {
    const event = new CampaignEventsAppended(campaignId, events[events.length - 1].version);
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.onError(err);
      }
    }
  };
}

/** A module's listener of appended events, registered at module init (before any write). */
export abstract class AppendedHandler implements OnModuleInit {
  constructor(private readonly appended: AppendedListeners) {}

  onModuleInit(): void {
    this.appended.add((event) => this.handle(event));
  }

  abstract handle(event: CampaignEventsAppended): void;
}
