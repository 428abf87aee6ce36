/** One message as the summarizer sees it: quoted data, never instructions. */
export interface TranscriptLine {
  index: number;
  role: string;
  speaker?: string | null;
  content: string;
  at: string;
  /**
   * §8: who could see the line (`public`, `private` to `audience`, `dm` only), so a prompt can leave out what its
   * subject never saw. Absent = public (callers that predate it).
   */
  visibility?: 'public' | 'private' | 'dm';
  /** Private lines: the ids they were said to. */
  audience?: string[];
}

export interface LocationSummaryInput {
  campaignId: string;
  location: { id: string; name: string };
  messages: TranscriptLine[];
}

export interface NpcSummaryInput {
  campaignId: string;
  npc: { id: string; name: string; aliases: string[] };
  location: { id: string; name: string } | null;
  messages: TranscriptLine[];
}

export interface WorldSummaryInput {
  campaignId: string;
  /** The world memory's kind, e.g. quest_completed (the kinds: WORLD in libs/memory/src/triggers/world.trigger.ts). */
  kind: string;
  /** Human readable description of the trigger, e.g. "Quest 'Find the Relic' completed". */
  event: string;
  messages: TranscriptLine[];
}

export interface RollingSummaryInput {
  campaignId: string;
  previousSummary: string | null;
  messages: TranscriptLine[];
  maxWords: number;
  viewer?: string | null;
  /** §8 public view: the summary is read by callers without a viewer, so its input holds public lines only. */
  publicOnly?: boolean;
}

export interface DefineTermInput {
  campaignId: string;
  term: string;
  /** The message that coined the term (and possibly a little context around it). */
  messages: TranscriptLine[];
}

/**
 * What one model call returned. Token counts are the provider's when known, else an estimate.
 * `inputTokens` counts every prompt token, cached ones included; the cache fields say how many of them were
 * read from or written to the provider's prompt cache (priced apart).
 */
export interface SummaryResult {
  text: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** The model that answered, as the provider named it. */
  model?: string;
  /** HTTP requests behind this result (a chunked window makes several); 1 when absent. */
  requests?: number;
}

/** Port for every model call Lorekeeper makes. Adapters must not retry: the retry policy does. */
export interface Summarizer {
  readonly name: string;
  /** The configured model (the usage ledger's label when a failed call names none). */
  readonly model?: string;
  summarizeLocation(input: LocationSummaryInput, signal?: AbortSignal): Promise<SummaryResult>;
  summarizeNpc(input: NpcSummaryInput, signal?: AbortSignal): Promise<SummaryResult>;
  summarizeWorld(input: WorldSummaryInput, signal?: AbortSignal): Promise<SummaryResult>;
  summarizeRolling(input: RollingSummaryInput, signal?: AbortSignal): Promise<SummaryResult>;
  defineTerm(input: DefineTermInput, signal?: AbortSignal): Promise<SummaryResult>;
}

export const SUMMARIZER = Symbol('SUMMARIZER');
