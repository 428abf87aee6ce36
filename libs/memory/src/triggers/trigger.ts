import type { CampaignState, EventOf, GameEvent, GameEventType, Message, StoredMessage } from '@app/campaign';
import type { StoredEvent } from '@app/event-store';
import type { Summarizer, SummaryOutcome, SummaryResult, TranscriptLine } from '@app/summarizer';
import type { KnownTerms } from '../glossary/known-terms';
import type { RollingSummaryView } from '../layers.reader';
import type { MemoryEvent, MemoryScope } from '../memory-events';

/** One scope to summarize, derived from a trigger event; `glossary` and `summary` are the §8 layers. */
export interface ScopeTask {
  scope: MemoryScope | 'glossary' | 'summary' | 'revision';
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
  /** §13: terms the messages of one request may coin (MAX_NEW_TERMS_PER_REQUEST). */
  maxNewTermsPerRequest: number;
  /** §13: coined terms a campaign holds at most (MAX_GLOSSARY_TERMS). */
  maxGlossaryTerms: number;
}

export const DEFAULT_TRIGGER_OPTIONS: TriggerOptions = {
  summaryIntervalRounds: 4,
  hotRounds: 4,
  rollingSummaryWords: 150,
  maxNewTermsPerRequest: 20,
  maxGlossaryTerms: 2_000,
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
  /** What retractions withheld at or before the trigger event and no revision has settled yet (§10). */
  withheld(): Promise<Withheld>;
  /** The messages of `indexes` not retracted as of the trigger event, oldest first. */
  messagesByIndex(indexes: number[]): Promise<StoredMessage[]>;
  /** A game event of the campaign (a withheld memory's own trigger), null when there is none. */
  event(version: number): Promise<StoredEvent | null>;
  /** The campaign state right after game event `version` (what the trigger handling it saw). */
  stateAt(version: number): Promise<CampaignState>;
}

/** A scene memory a retraction withheld (§10): revised from its surviving input, or withdrawn. */
export interface WithheldMemory {
  id: string;
  scope: MemoryScope;
  subjectId: string;
  /** The game event that recorded it: its trigger is planned again to word the revision. */
  triggerVersion: number;
  inputIndexes: number[];
  revision: number;
}

/** A "Previously" key whose newest rows a retraction withheld: rewritten from `base` and their surviving input. */
export interface WithheldSummary {
  /** `*`, `public` or a player's witness key. */
  key: string;
  /** The player of a player's key, else null. */
  viewer: string | null;
  publicView: boolean;
  /** The newest summary of the key that no retraction withheld (null: none). */
  base: string | null;
  /** Every input of the withheld rows, ascending. */
  inputIndexes: number[];
  /** The withheld rows' last covered index: the cursor never moves back. */
  throughMessageIndex: number;
}

/** An auto-coined glossary term whose coining message was retracted. */
export interface WithheldTerm {
  term: string;
  termKey: string;
  coinedMessageIndex: number;
}

export interface Withheld {
  memories: WithheldMemory[];
  summaries: WithheldSummary[];
  terms: WithheldTerm[];
}

/** The scope a model call is about (the usage ledger's and MemorySkipped's labels). */
export interface CallAbout {
  /** `revision`: the call rewrites a withheld item (subject: its memory id, or `summary:<subject>`). */
  scope: 'location' | 'npc' | 'world' | 'summary' | 'glossary' | 'revision';
  subjectId: string;
}

/** A call about a scope of its own (not a revision): what a MemorySkipped names. */
export type SceneAbout = CallAbout & { scope: Exclude<CallAbout['scope'], 'revision'> };

/** One trigger event being handled, as the drain hands it to the triggers that fire on it. */
export interface TriggerRun {
  campaignId: string;
  /** The game event, with its place in the stream. */
  event: StoredEvent;
  /** The campaign state right after `event` (the drain folds forward from its checkpoint's state). */
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
  skipped(about: SceneAbout, outcome: SummaryOutcome & { ok: false }, since: number, through: number): MemoryEvent;
  log(message: string, context: Record<string, unknown>): void;
  /**
   * §13: the terms coined so far from the request that recorded `event` (its correlation id); the glossary adds to
   * it.
   */
  requestTerms: { coined: number };
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
