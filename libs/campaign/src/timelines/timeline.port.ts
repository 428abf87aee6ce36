import type { EntityManager } from 'typeorm';
import type { Horizon } from './horizon';

/**
 * One owner's part of fork, rewind and delete (§10). Registered with the TimelineService, as inline projections are
 * with the projector, so campaign imports none of its participants. Every call runs inside the operation's one
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

/**
 * Memory's part of a cut (lane 4): the memory stream's version M at game version V (its outcomes whose trigger
 * version is ≤ min(V, processed)), which the campaign lib cannot read itself.
 */
/** Memory's cut at game version V: X = min(V, P) (how far its worker had got) and the memory stream's version at X. */
export type MemoryVersionAt = (
  m: EntityManager,
  campaignId: string,
  version: number,
) => Promise<{ processedVersion: number; memoryVersion: number }>;

/** What happened, told after the commit (caches, the worker, the event stream, other replicas). */
export type TimelineChange =
  | { kind: 'forked'; campaignId: string; parentId: string; version: number }
  | { kind: 'rewound'; campaignId: string; timeline: number; fromVersion: number; toVersion: number; version: number }
  | { kind: 'deleted'; campaignId: string };

export type TimelineListener = (change: TimelineChange) => void;
