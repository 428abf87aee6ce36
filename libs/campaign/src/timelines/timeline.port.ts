import { EntityManager } from 'typeorm';

/**
 * Where a fork or rewind cuts a campaign (DESIGN §10): game version V, the message count N(V), how far the
 * memory worker had got X = min(V, P) and the memory stream's version M at X (the prefix a fork copies).
 */
export interface TimelinePoint {
  version: number;
  messageCount: number;
  processedVersion: number;
  memoryVersion: number;
}

/**
 * An owner of per-campaign rows taking part in fork, rewind and delete, inside the operation's one
 * transaction (registered at `onModuleInit`, like MessageIndexer and GameEventProjection, so the campaign lib
 * imports none of them). Each touches only its own tables, set-based.
 */
export interface TimelineParticipant {
  /** For logs and errors. */
  readonly name: string;
  /** Fork: copy `from`'s rows as of `at` to the new campaign `to`. */
  copy(m: EntityManager, from: string, to: string, at: TimelinePoint): Promise<void>;
  /** Rewind in place: drop what came after `to`, undo marks made after it; `timeline` is the new timeline. */
  rewind(m: EntityManager, campaignId: string, to: TimelinePoint, timeline: number): Promise<void>;
  /** Delete: every row of the campaign. */
  remove(m: EntityManager, campaignId: string): Promise<void>;
}

/** Memory's part of a cut: its checkpoint and stream, which the campaign lib cannot read. */
export type MemoryPointOf = (
  m: EntityManager,
  campaignId: string,
  version: number,
) => Promise<Pick<TimelinePoint, 'processedVersion' | 'memoryVersion'>>;

/** What happened, told after the commit (caches, the worker, the event stream, other replicas). */
export type TimelineChange =
  | { kind: 'forked'; campaignId: string; parentId: string; version: number }
  | { kind: 'rewound'; campaignId: string; timeline: number; fromVersion: number; toVersion: number; version: number }
  | { kind: 'deleted'; campaignId: string };

export type TimelineListener = (change: TimelineChange) => void;
