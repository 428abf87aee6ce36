/**
 * §10 as-of reads: how far a read (or a fork, or a rewind) sees into a campaign's two streams. Built once per
 * request by `CampaignReader.horizon(id, asOf?)`; every reader takes it, current reads included.
 */
export interface Horizon {
  /** Game-stream version V: events ≤ V. */
  version: number;
  /** The campaign's timeline (1, +1 per rewind) the version belongs to. */
  timeline: number;
  /** Message count N at V: messages with index < N. */
  messageCount: number;
  /** Memory-stream version M: outcomes whose triggerVersion ≤ V (a prefix of the memory stream). */
  memoryVersion: number;
  /** `recordedAt` of game event V (facts' expiry is judged at it); null for a current read (the clock). */
  at: string | null;
  /** True for a current read: M and `at` are unbounded and no extra read was made. */
  current: boolean;
}

/** A memory version bound meaning "no bound" (current reads). */
export const UNBOUNDED_MEMORY_VERSION = Number.MAX_SAFE_INTEGER;
