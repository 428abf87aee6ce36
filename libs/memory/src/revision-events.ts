import type { MemorySkippedData, RollingSummaryUpdatedData } from './memory-events';

/**
 * Memory-stream events of retraction and revision (DESIGN §10). Lane 3's minimal version of the types the plan
 * (docs/timelines-plan.md §1.1) puts in memory-events.ts: merged there once lane 0's types land.
 */
export interface MemoryRevisedData {
  memoryId: string;
  summary: string;
  /** Exactly the surviving input the revision summarized. */
  inputIndexes: number[];
  /** The memory's revision after this one (a recorded memory is revision 1). */
  revision: number;
  triggerVersion: number;
  createdAt: string;
  attempts: number;
  inputTokens: number;
  outputTokens: number;
}

export interface MemoryWithdrawnData {
  memoryId: string;
  reason: 'retracted';
  triggerVersion: number;
}

export interface GlossaryTermWithdrawnData {
  term: string;
  coinedMessageIndex: number;
  triggerVersion: number;
}

export type RevisionEvent =
  | { type: 'MemoryRevised'; data: MemoryRevisedData }
  | { type: 'MemoryWithdrawn'; data: MemoryWithdrawnData }
  | { type: 'GlossaryTermWithdrawn'; data: GlossaryTermWithdrawnData };

/** A "Previously" rewritten without retracted input (`revision: true`: same event, readers need nothing new). */
export type RevisedSummaryData = RollingSummaryUpdatedData & { revision?: true };

/** A failed revision: the item stays withheld until a later trigger revises it. */
export type SkippedRevisionData = MemorySkippedData & { revisionOf?: string };

/** What the revision trigger records. */
export type RevisionOutcome =
  | RevisionEvent
  | { type: 'RollingSummaryUpdated'; data: RevisedSummaryData }
  | { type: 'MemorySkipped'; data: SkippedRevisionData };
