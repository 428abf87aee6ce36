import type { CampaignState, EventOf, GameEvent, GameEventType, Message, StoredMessage } from '@app/campaign';
import type { StoredEvent } from '@app/event-store';
import type { Summarizer, SummaryOutcome, SummaryResult, TranscriptLine } from '@app/summarizer';
import type { KnownTerms } from '../glossary/known-terms';
import type { RollingSummaryView } from '../layers.reader';
import type { MemoryEvent, MemoryScope } from '../memory-events';

/** One scope to summarize, derived from a trigger event; `glossary` and `summary` are the §8 layers. */
export interface ScopeTask {
  scope: MemoryScope | 'glossary' | 'summary';
  subjectId: string;
  /** Location whose messages are selected (location and NPC scopes). */
  locationId: string | null;
  /** world:<kind>, e.g. quest_completed. */
  worldKind?: string;
  tags: string[];
  questId: string | null;
  encounterId: string | null;
  /** World scope: the trigger in words, with names rather than ids where the state knows them. */
  words?: (state: CampaignState) => string;
}

export interface TriggerOptions {
  /** RoundEnded of a multiple of this rewrites "Previously" (SUMMARY_INTERVAL_ROUNDS). */
  summaryIntervalRounds: number;
  /** §8: rounds kept verbatim in Recent Messages (HOT_ROUNDS); only older ones are summarized. */
  hotRounds: number;
  /** §8: the longest "Previously" (ROLLING_SUMMARY_WORDS). */
  rollingSummaryWords: number;
}

export const DEFAULT_TRIGGER_OPTIONS: TriggerOptions = {
  summaryIntervalRounds: 4,
  hotRounds: 4,
  rollingSummaryWords: 150,
};

/** What a trigger may read while it runs: the drain binds them to the campaign and to before the trigger event. */
export interface TriggerReads {
  /** The campaign's messages of a scope, recorded before the trigger event (CampaignReader.messagesForScope). */
  messages(o: {
    locationId?: string;
    afterIndex: number;
    maxRound?: number;
    witnessedBy?: string;
  }): Promise<StoredMessage[]>;
  /** The messages of `selection` the witness saw (§8 witnessing, the speaker rule included). */
  witnessed(witness: string, selection: StoredMessage[]): Promise<StoredMessage[]>;
  /** The latest "Previously" of a summary key (`*`, a player's witness key, or the public one). */
  latestSummary(key: string): Promise<RollingSummaryView | null>;
  /** Names the glossary must not coin again (read once per claim, grows as terms are added). */
  knownTerms(): Promise<KnownTerms>;
}

/** The scope a model call is about (the usage ledger's and MemorySkipped's labels). */
export interface CallAbout {
  scope: 'location' | 'npc' | 'world' | 'summary' | 'glossary';
  subjectId: string;
}

/** One trigger event being handled, as the drain hands it to the triggers that fire on it. */
export interface TriggerRun {
  campaignId: string;
  /** The game event, with its place in the stream. */
  event: StoredEvent;
  /** The campaign state as of the drain's snapshot (it knows every event read). */
  state: CampaignState;
  /** Scope cursors keyed `scope:subject`; a trigger moves its own as its outcomes are made. */
  cursors: Map<string, number>;
  options: TriggerOptions;
  reads: TriggerReads;
  /** One model call under the retry policy; a shutdown or a lost lease abandons the whole trigger. */
  attempt(
    about: CallAbout,
    call: (summarizer: Summarizer, signal: AbortSignal) => Promise<SummaryResult>,
  ): Promise<SummaryOutcome>;
  /** The MemorySkipped of a failed summary (logged): the cursor stays, the messages are offered again. */
  skipped(about: CallAbout, outcome: SummaryOutcome & { ok: false }, since: number, through: number): MemoryEvent;
  log(message: string, context: Record<string, unknown>): void;
}

/**
 * One kind of memory (DESIGN §2, §8), typed over the game events that fire it: which scopes an event fires (`plan`,
 * pure) and how one scope is summarized into outcome events (`run`: what it selects and how it words the prompt).
 */
export interface Trigger<E extends GameEvent = GameEvent> {
  readonly name: string;
  plan(event: E, options: TriggerOptions): ScopeTask[];
  /** The outcome events of one planned task; none when there was nothing to summarize. */
  run(task: ScopeTask, run: TriggerRun): Promise<MemoryEvent[]>;
}

/** The game events of the given types (a trigger's event parameter). */
export type Fires<T extends GameEventType> = EventOf<T>;

/** A prompt: which summarizer call, with which words, over the selected messages. */
export type Prompt = (summarizer: Summarizer, signal: AbortSignal) => Promise<SummaryResult>;

export function toTranscript(m: Message): TranscriptLine {
  const line: TranscriptLine = { index: m.index, role: m.role, speaker: m.speaker, content: m.content, at: m.at };
  line.visibility = m.visibility;
  if (m.visibility === 'private') line.audience = m.audience;
  return line;
}

export const isPublic = (m: Message) => m.visibility === 'public';
export const notDmOnly = (m: Message) => m.visibility !== 'dm';
