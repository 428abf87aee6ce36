import { AccountBinding, Fact, Player } from './world-state';

export const DANGER_LEVELS = ['SAFE', 'LOW', 'MODERATE', 'HIGH', 'EXTREME', 'CLEARED'] as const;
export type DangerLevel = (typeof DANGER_LEVELS)[number];

export const MESSAGE_ROLES = ['player', 'dm', 'npc', 'narrator', 'system', 'assistant', 'tool'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];
export const VISIBILITIES = ['public', 'private', 'dm'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export interface Location {
  id: string;
  name: string;
  dangerLevel: DangerLevel | null;
  completedEncounters: string[];
}

export interface Npc {
  id: string;
  name: string;
  aliases: string[];
  locationId: string | null;
}

export interface Objective {
  id: string;
  name: string;
  completed: boolean;
}

export interface Quest {
  id: string;
  name: string;
  objectives: Objective[];
  completed: boolean;
}

/** §8 story time: how a context dates what it prints — story time, the client's `at`, or not at all. */
export const CLOCKS = ['story', 'wall', 'none'] as const;
export type ClockSetting = (typeof CLOCKS)[number];

export interface CampaignSettings {
  perRoleMemory: boolean;
  /** Absent = `story` (campaigns created before the setting existed keep their head rows as they were). */
  clock?: ClockSetting;
}

/** The aggregate every command decides against; rebuilt from the game stream by `evolve`. */
export interface CampaignState {
  id: string;
  name: string;
  version: number;
  createdAt: string;
  currentLocationId: string | null;
  currentActId: string | null;
  round: number;
  settings: CampaignSettings;
  locations: Record<string, Location>;
  npcs: Record<string, Npc>;
  quests: Record<string, Quest>;
  /** §8: the story time last given by a message or command (`Day 3 of Frostmoon, dusk`); absent until one is. */
  storyTime?: string | null;
  /** Next campaign-wide message index (0-based). */
  messageCount: number;
  /** World facts by `type:key` (§6). */
  facts: Record<string, Fact>;
  /** Player characters by id (§6, §8). */
  players: Record<string, Player>;
  /** Game accounts and the agent each is bound to (§5). */
  accounts: Record<string, AccountBinding>;
  /** Campaign bible (§8): `text` for everyone, `dmOnly` for the dm agent. */
  bible?: Bible | null;
  /** DM overrides of glossary terms (§8), keyed by the lower-cased term. */
  glossary?: Record<string, GlossaryOverride>;
  /** Game version of each RoundEnded, in order: round r ended at roundEnds[r - 1]. */
  roundEnds?: number[];
  /** §10: the campaign this one was forked from, at which of its versions (set by CampaignForked). */
  parent?: ParentRef | null;
  /** §10: 1, +1 per rewind; read from `campaigns.timeline`, not folded (a rewind deletes its own history). */
  timeline?: number;
  /** §10: every rewind of this campaign, oldest first (from `campaign_timelines`; If-Match needs them). */
  rewinds?: Rewind[];
}

export interface ParentRef {
  id: string;
  version: number;
}

/** One rewind: timeline `timeline` began when the campaign went back from `fromVersion` to `toVersion`. */
export interface Rewind {
  timeline: number;
  fromVersion: number;
  toVersion: number;
}

export interface Bible {
  text: string;
  dmOnly: string;
}

/** A DM's word on a glossary term: a locked definition and/or hidden. */
export interface GlossaryOverride {
  term: string;
  definition: string | null;
  hidden: boolean;
}

export const emptyState = (id: string): CampaignState => ({
  id,
  name: '',
  version: 0,
  createdAt: '',
  currentLocationId: null,
  currentActId: null,
  round: 1,
  settings: { perRoleMemory: false },
  locations: {},
  npcs: {},
  quests: {},
  messageCount: 0,
  facts: {},
  players: {},
  accounts: {},
});

export interface ToolCall {
  id: string;
  name: string;
}

/** A message as recorded (DESIGN §2). */
export interface Message {
  index: number;
  role: MessageRole;
  speaker: string | null;
  content: string;
  locationId: string | null;
  npcIds: string[];
  at: string;
  round: number;
  visibility: Visibility;
  audience: string[];
  toolCalls: ToolCall[];
  toolCallId: string | null;
  reasoning: string | null;
  /** §8: the campaign's story time when the message was recorded (its own, when it gave one). */
  storyTime?: string | null;
  /** §8: true when the server filled `at` (the client gave none): such an `at` is never printed. */
  atFilled?: boolean;
}
