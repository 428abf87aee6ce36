import type { EntityManager } from 'typeorm';
import type { QueryNode } from './query/query-language';

/** Where a search looks (DESIGN §7): message content, message reasoning, or memory summaries. */
export const SEARCH_IN = ['messages', 'reasoning', 'memories'] as const;
export type SearchIn = (typeof SEARCH_IN)[number];

export type SearchHitKind = 'message' | 'reasoning' | 'memory' | 'broadcast';

/** Snippet hit markers: every matched word is wrapped as «word»; `…` marks cut text. */
export const HIT_OPEN = '«';
export const HIT_CLOSE = '»';
export const SNIPPET_ELLIPSIS = '…';
/** Words of context a snippet keeps around its hits (FTS5 counts tokens, PostgreSQL words). */
export const SNIPPET_WORDS = 24;

/** A message as the index stores it: content and reasoning are indexed separately. */
export interface MessageDoc {
  index: number;
  role: string;
  locationId: string | null;
  at: string;
  round: number;
  content: string;
  reasoning: string | null;
}

/**
 * Which wording of a memory a row holds (§10): a recorded or revised one by its memory-stream version (`memory`), a
 * game master's correction by its game version (`correction`). Domain ids: the adapters place both in row ids of
 * their own, so no caller knows how.
 */
export interface WordingId {
  source: 'memory' | 'correction';
  version: number;
}

export const sameWording = (a: WordingId | undefined, b: WordingId | undefined): boolean =>
  a !== undefined && b !== undefined && a.source === b.source && a.version === b.version;

export interface MemoryDoc {
  id: string;
  /** The wording this row holds: a memory has one row per wording (§10). */
  wording: WordingId;
  locationId: string | null;
  at: string;
  /** Round of the last message the memory summarizes (null when unknown). */
  round: number | null;
  summary: string;
}

export interface BroadcastDoc {
  id: string;
  /** Global event position of its BroadcastPosted: unique and increasing. */
  seq: number;
  from: string;
  content: string;
  at: string;
}

export interface SearchFilters {
  in: SearchIn;
  /** Messages and reasoning only. */
  role?: string;
  /** Messages, reasoning and memories. */
  locationId?: string;
  limit: number;
  /**
   * As-of bound (DESIGN §10): messages and reasoning below `messageCount`, wordings recorded or revised through
   * `memoryVersion` and DM corrections through `version` (absent: all). Absent = no bound (callers that read the live
   * index on purpose).
   */
  at?: Omit<IndexHorizon, 'version'> & { version?: number };
}

/** How far a read, fork or rewind sees into a campaign (a campaign Horizon has these fields, §10). */
export interface IndexHorizon {
  /** Messages with index < messageCount. */
  messageCount: number;
  /** Wordings recorded or revised through this memory-stream version. */
  memoryVersion: number;
  /** DM corrections through this game version. */
  version: number;
}

export interface SearchHit {
  kind: SearchHitKind;
  /** Message index (messages, reasoning) or memory/broadcast id. */
  ref: number | string;
  /** Text around the hits, each hit wrapped in «…». */
  snippet: string;
  /** Relevance, higher is better (FTS5: −bm25; PostgreSQL: ts_rank_cd). Comparable within one answer only. */
  score: number;
  at: string;
  round: number | null;
  /** Broadcasts only. */
  from?: string;
  /** Memories only: the wording the hit found (a memory has one row per wording, §10). */
  wording?: WordingId;
}

/**
 * Full-text index of messages, reasoning, memories and broadcasts (DESIGN §7). Writes join the
 * caller's transaction (the projection's), so an index row commits or rolls back with what it indexes.
 */
export interface SearchIndex {
  indexMessages(m: EntityManager, campaignId: string, docs: MessageDoc[]): Promise<void>;
  indexMemories(m: EntityManager, campaignId: string, docs: MemoryDoc[]): Promise<void>;
  indexBroadcasts(m: EntityManager, docs: BroadcastDoc[]): Promise<void>;
  /**
   * Ranked hits, best first. `campaignId` null searches broadcasts (filters other than `limit` are
   * ignored). The query is the parsed form; each adapter compiles it for its engine.
   */
  search(campaignId: string | null, query: QueryNode, filters: SearchFilters): Promise<SearchHit[]>;
  /** Empties every index table (rebuild). */
  clear(m: EntityManager): Promise<void>;
}

export const SEARCH_INDEX = Symbol('SEARCH_INDEX');

/**
 * The index's rows in fork, rewind and delete (DESIGN §10): the shape of a campaign TimelineParticipant, registered
 * by a lib above (search imports no campaign code). Runs inside the operation's transaction.
 */
export interface SearchTimeline {
  readonly name: 'search';
  copy(m: EntityManager, from: string, to: string, at: IndexHorizon): Promise<void>;
  rewind(m: EntityManager, id: string, to: IndexHorizon): Promise<void>;
  remove(m: EntityManager, id: string): Promise<void>;
}

/**
 * Matches a search ranks, newest first: ranking costs time per match, so a word found in 100,000
 * messages would make search grow with history. Below this many matches the ranking is exact.
 */
export const SEARCH_CANDIDATES = 5000;

export interface SearchIndexOptions {
  /** Newest matches ranked per search (default SEARCH_CANDIDATES). */
  candidates?: number;
}

export const candidateLimit = (o: SearchIndexOptions): number => {
  const n = o.candidates ?? SEARCH_CANDIDATES;
  if (!Number.isInteger(n) || n < 1) throw new Error(`search candidates must be a positive integer, not ${n}`);
  return n;
};
