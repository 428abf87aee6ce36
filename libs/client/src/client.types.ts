// The inputs and options of LorekeeperClient's calls (its answers are the OpenAPI document's schemas).

export interface ClientOptions {
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string;
  fetch?: typeof fetch;
}

export interface WriteOptions {
  idempotencyKey?: string;
  /** The version (current timeline) or `"<timeline>:<version>"` (a write's `ETag`) the write expects; else 412. */
  ifMatch?: number | string;
}

/** `asOf`: read the campaign as it stood when its game stream was at that version (DESIGN §10). */
// A type, not an interface: it must fit `Query`'s index signature.
export type AsOf = { asOf?: number };

/** A campaign's parent: the campaign it was forked from, at which version. */
export interface ParentRef {
  id: string;
  version: number;
}

export interface CampaignListItem {
  id: string;
  name: string;
  version: number;
  processedVersion: number;
  parent: ParentRef | null;
  createdAt: string;
}

export interface MemoryHistoryItem {
  revision: number;
  summary: string;
  origin: 'model' | 'dm';
  reason: 'recorded' | 'revised' | 'corrected' | 'withdrawn' | 'deleted';
  version: number;
  at: string;
  inputIndexes: number[];
}

export interface MessageInput {
  role: 'player' | 'dm' | 'npc' | 'narrator' | 'system' | 'assistant' | 'tool';
  speaker?: string | null;
  content: string;
  locationId?: string | null;
  npcIds?: string[];
  at?: string;
  visibility?: 'public' | 'private' | 'dm';
  audience?: string[];
  toolCalls?: { id: string; name: string }[];
  toolCallId?: string;
  reasoning?: string;
  /** §8 story time, one line of 1–80 characters (`Day 3 of Frostmoon, dusk`). */
  storyTime?: string;
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface PlayerInput {
  name: string;
  aliases?: string[];
  /** Ordered HUD stats, `{label: value}`. */
  stats?: Record<string, string | number>;
  /** §8 split parties: a location places the player apart from the party; null brings it back. */
  locationId?: string | null;
}

export interface FactInput {
  value: string;
  ttlSeconds?: number;
  expiresAt?: string;
  priority?: number;
}

export interface SnapshotInput {
  content: unknown;
  tick?: number;
  capturedAt?: string;
  merge?: boolean;
}

export interface SnapshotToolInput {
  title?: string;
  fields?: string[];
  invalidatedBy?: string[];
  maxAgeTicks?: number;
}
