import type { CampaignSnapshot } from '@app/campaign';

/** Section keys in their canonical order (DESIGN §8). */
export const SECTION_ORDER = ['bible', 'glossary', 'hud', 'digest', 'state', 'previously', 'location', 'npc', 'world', 'recall', 'recent'] as const;
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
  /** True when the caller used none of §5–8's parameters: answer exactly as §2. */
  legacy: boolean;
}

export interface SectionEntry {
  ref: string;
  text: string;
  subjectId?: string;
  createdAt?: string;
  /** Filled by the composer. */
  tokens?: number;
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
  /** Left out of the response, yet its `extra` still counts (an unchanged digest, §6). */
  omitted?: boolean;
}

export interface DroppedEntry {
  section: SectionKey;
  ref: string;
  tokens: number;
  reason: 'compacted' | 'budget';
}

export interface SectionInput {
  request: ContextRequest;
  snapshot: CampaignSnapshot;
}

/** One file per key under sections/, registered in the composer's table. */
export interface ContextSection {
  key: SectionKey;
  title: string;
  build(input: SectionInput): Promise<BuiltSection | null>;
}
