import type { StoredEvent } from '@app/event-store';
import type { EntityManager } from 'typeorm';
import type { CampaignState } from '../domain/state';

/** What an inline projection is handed with the events of one append. */
export interface ProjectionContext {
  /** The append's transaction: a projection's rows commit or roll back with the events. */
  m: EntityManager;
  campaignId: string;
  /** The state an event was appended to (who witnessed a message is judged from it, §8). */
  stateBefore(e: StoredEvent): CampaignState;
}

/**
 * A projection of game events run in the append's transaction, as emmett declares inline projections: a value that
 * names the event types it handles (`canHandle`) and applies them (`handle`). The projector walks its list in
 * registration order and hands each projection only the events it can handle, in order; an append with none of them
 * skips it. Registered with `CampaignProjector.addProjection` — the one way in.
 */
export interface InlineProjection {
  /** For logs and docs (e.g. `messages`, `search`, `accounts`). */
  readonly name: string;
  readonly canHandle: readonly string[];
  handle(events: StoredEvent[], context: ProjectionContext): Promise<void>;
}

/** Declares an inline projection (a typed identity, as emmett's `projection({ canHandle, handle })`). */
export const projection = (p: InlineProjection): InlineProjection => p;

/** Runs each projection of `list` on the events it can handle, in order. */
export async function runProjections(
  list: readonly InlineProjection[],
  events: StoredEvent[],
  context: ProjectionContext,
): Promise<void> {
  for (const p of list) {
    const handled = events.filter((e) => p.canHandle.includes(e.type));
    if (handled.length) await p.handle(handled, context);
  }
}
