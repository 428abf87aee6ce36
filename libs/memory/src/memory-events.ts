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
}

export type MemoryEvent = { type: 'MemoryRecorded'; data: MemoryRecordedData } | { type: 'MemorySkipped'; data: MemorySkippedData };

/** Deterministic id, so a replay or a retried transaction can never make a second memory. */
export const memoryId = (campaignId: string, triggerVersion: number, scope: string, subjectId: string) =>
  `${campaignId}:${triggerVersion}:${scope}:${subjectId}`;

export const WORLD_SUBJECT = 'world';
