import type { EntityManager } from 'typeorm';
import type { Horizon } from './horizon';

/**
 * One owner's part of fork, rewind and delete (§10). Registered with the TimelineService like MessageIndexer or
 * GameEventProjection, so campaign imports none of its participants. Every call runs inside the operation's one
 * transaction (`m`): a participant that throws undoes the whole operation.
 */
export interface TimelineParticipant {
  /** Fork: copy `from`'s rows as of `at` to the new campaign `to`, set-based (no per-event application code). */
  copy(m: EntityManager, from: string, to: string, at: Horizon): Promise<void>;
  /** Rewind in place to `to`; `timeline` is the new timeline number. */
  rewind(m: EntityManager, id: string, to: Horizon, timeline: number): Promise<void>;
  /** Delete: every row of the campaign. */
  remove(m: EntityManager, id: string): Promise<void>;
}
