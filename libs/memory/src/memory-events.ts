export type MemoryScope = 'location' | 'npc' | 'world';

export interface MemoryRecordedData {
  memoryId: string;
  scope: MemoryScope;
  subjectId: string;
  summary: string;
  tags: string[];
  locationId: string | null;
  npcIds: string[];
  questId: string | null;
  encounterId: string | null;
  sinceMessageIndex: number;
  throughMessageIndex: number;
  sinceTimestamp: string;
  createdAt: string;
  triggerVersion: number;
  /** The scope's cursor after this memory. */
  cursor: number;
  inputIndexes: number[];
  attempts: number;
  inputTokens: number;
  outputTokens: number;
}

export interface MemorySkippedData {
  scope: MemoryScope | 'summary' | 'glossary';
  subjectId: string;
  reason: string;
  attempts: number;
  triggerVersion: number;
  sinceMessageIndex: number;
  throughMessageIndex: number;
  /** §10: the failed call was a revision of this memory id, or of `summary:<viewerKey>`'s "Previously". */
  revisionOf?: string;
}

/** §10: a withheld scene memory summarized again from its surviving inputs (`revision` counts from 1). */
export interface MemoryRevisedData {
  memoryId: string;
  summary: string;
  inputIndexes: number[];
  revision: number;
  triggerVersion: number;
  createdAt: string;
  attempts: number;
  inputTokens: number;
  outputTokens: number;
}

/** §10: a withheld memory none of whose inputs survived a retraction. */
export interface MemoryWithdrawnData {
  memoryId: string;
  reason: 'retracted';
  triggerVersion: number;
}

/** §10: an auto-coined term whose coining message was retracted (a DM-locked term is never withdrawn). */
export interface GlossaryTermWithdrawnData {
  term: string;
  coinedMessageIndex: number;
  triggerVersion: number;
}

/** A coined term and its definition (DESIGN §8 glossary), first seen in message `coinedMessageIndex`. */
export interface GlossaryTermAddedData {
  term: string;
  definition: string;
  coinedMessageIndex: number;
  triggerVersion: number;
  createdAt: string;
  attempts: number;
  inputTokens: number;
  outputTokens: number;
}

/** The "Previously" summary (DESIGN §8): everyone's (`viewer` null, the dm's) or one player's. */
export interface RollingSummaryUpdatedData {
  summary: string;
  viewer: string | null;
  /** §8 public view: the summary over public messages only, read by callers without a viewer. */
  publicView?: boolean;
  /** The dm's summary whose input was public only, from where the public one stood: it is the public one as well. */
  alsoPublic?: boolean;
  sinceMessageIndex: number;
  throughMessageIndex: number;
  triggerVersion: number;
  createdAt: string;
  inputIndexes: number[];
  attempts: number;
  inputTokens: number;
  outputTokens: number;
  /** §10: a "Previously" rewritten without retracted messages (the cursor does not move back). */
  revision?: boolean;
}

export type MemoryEvent =
  | { type: 'MemoryRecorded'; data: MemoryRecordedData }
  | { type: 'MemorySkipped'; data: MemorySkippedData }
  | { type: 'GlossaryTermAdded'; data: GlossaryTermAddedData }
  | { type: 'RollingSummaryUpdated'; data: RollingSummaryUpdatedData }
  | { type: 'MemoryRevised'; data: MemoryRevisedData }
  | { type: 'MemoryWithdrawn'; data: MemoryWithdrawnData }
  | { type: 'GlossaryTermWithdrawn'; data: GlossaryTermWithdrawnData };

/** The `summary` cursor's subject: '*' for everyone's summary, else the player id (never a valid id, so no clash). */
export const summarySubject = (viewer: string | null): string => viewer ?? '*';

/** The public summary's cursor subject and its rolling_summaries key (never a player id: those are `player:`-keyed). */
export const PUBLIC_SUMMARY_SUBJECT = '*public';
export const PUBLIC_SUMMARY_KEY = 'public';

/** Deterministic id, so a replay or a retried transaction can never make a second memory. */
export const memoryId = (campaignId: string, triggerVersion: number, scope: string, subjectId: string) =>
  `${campaignId}:${triggerVersion}:${scope}:${subjectId}`;

export const WORLD_SUBJECT = 'world';
