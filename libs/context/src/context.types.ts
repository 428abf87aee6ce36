import type { CampaignSnapshot, ViewerKind } from '@app/campaign';

/** Section keys in their canonical order (DESIGN §8). */
export const SECTION_ORDER = [
  'bible',
  'glossary',
  'hud',
  'digest',
  'scene',
  'state',
  'previously',
  'location',
  'npc',
  'world',
  'recall',
  'recent',
] as const;
export type SectionKey = (typeof SECTION_ORDER)[number];

export const AGENTS = ['narrative', 'dm', 'player', 'npc', 'agent'] as const;
export type AgentKind = (typeof AGENTS)[number];

export interface ContextRequest {
  campaignId: string;
  agent: AgentKind;
  limit: number;
  viewer?: string;
  include?: SectionKey[];
  budget?: number;
  query?: string;
  account?: string;
  agentId?: string;
  tick?: number;
  digestVersion?: string;
  /** DESIGN §10: the context as the campaign served it at this game version (no wait, no `state` section). */
  asOf?: number;
  /** True when the caller used none of §5–8's parameters: answer exactly as §2. */
  legacy: boolean;
}

export interface SectionEntry {
  ref: string;
  text: string;
  subjectId?: string;
  createdAt?: string;
  /** Recall: the entry's rank among the hits, 1 = best. */
  rank?: number;
  /** Text form: consecutive entries of one group print under one `### <group>` header (a round and day). */
  group?: string;
  /** Text form of a `timeline` section: position in time (a message index); entries without one print first. */
  seq?: number;
  /** Filled by the composer. */
  tokens?: number;
  /** A memory entry (§10 Corrections): 1 as recorded, +1 per revision or correction. */
  revision?: number;
  /** A memory entry: `model`, or `dm` for a game master's correction. */
  origin?: string;
  /** A message's own words (no index or speaker): what the no-sentence-twice rule compares. Not in the response. */
  body?: string;
  /** §13: when a Glossary term was last used (the budget drops the least recently used first). Not in the response. */
  usedAt?: string;
}

export interface BuiltSection {
  key: SectionKey;
  title: string;
  entries: SectionEntry[];
  /** A single line rendered without a heading (the HUD). */
  inline?: boolean;
  /** Extra response fields the section contributes (e.g. `digest`). */
  extra?: Record<string, unknown>;
  /** Entries the section itself left out (compaction, its own budget). */
  dropped?: DroppedEntry[];
  /**
   * Only the first `limit` entries are the section's own; later ones fill room the others leave (Recall past
   * RECALL_LIMIT).
   */
  limit?: number;
  /** Text form prints the entries oldest first by `seq`, not in stored (rank) order (Recall). */
  timeline?: boolean;
  /** Left out of the response, yet its `extra` still counts (an unchanged digest, §6). */
  omitted?: boolean;
}

/** A built section with its tokens counted (the composer's working form). */
export interface ComposedSection extends BuiltSection {
  tokens: number;
}

/**
 * Why an entry left a context (§7 compaction, §8 budget and no sentence twice; §10 `not-historical`: a section an
 * as-of context cannot serve, game-state snapshots being a cache, not history).
 */
export const DROP_REASONS = ['compacted', 'budget', 'duplicate', 'not-historical'] as const;

export interface DroppedEntry {
  section: SectionKey;
  ref: string;
  tokens: number;
  reason: (typeof DROP_REASONS)[number];
}

/** Whose eyes a context is seen through (DESIGN §8 witnessing). */
export interface Audience {
  /** The dm agent: sees everything, the bible's dm-only part and dm-only messages included. */
  dm: boolean;
  /** The `viewer` character, when one was named (player/npc agents always name one). */
  viewer: { kind: ViewerKind; id: string } | null;
  /** Witness key (`player:<id>`/`npc:<id>`) everything is filtered by; null = no witness filter. */
  witness: string | null;
}

export const OMNISCIENT: Audience = { dm: false, viewer: null, witness: null };

/** The campaign as of one context build, with how far the memory worker got (asked of memory first). */
export interface ContextSnapshot extends CampaignSnapshot {
  processedVersion: number;
}

export interface SectionInput {
  request: ContextRequest;
  snapshot: CampaignSnapshot;
  /** Absent = no viewer (no witness filter, not the dm). */
  audience?: Audience;
  /** For sections built last (`after: true`): every other section already built. */
  others?: BuiltSection[];
}

/** One file per key under sections/, registered in the composer's table. */
export interface ContextSection {
  key: SectionKey;
  title: string;
  /** Built after every other section, seeing them (Recall leaves out what they already hold). */
  after?: boolean;
  build(input: SectionInput): Promise<BuiltSection | null>;
}
