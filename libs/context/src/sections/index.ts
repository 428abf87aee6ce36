import type { CampaignReader, StateKind } from '@app/campaign';
import type { AppConfig, Clock } from '@app/common';
import type { LayersReader, MemoryReader } from '@app/memory';
import type { SearchIndex } from '@app/search';
import type { SnapshotStore } from '@app/state';
import { AGENTS, AgentKind, ContextSection, SECTION_ORDER, SectionKey } from '../context.types';
import type { TokenCounter } from '../token-counter.port';
import { BibleSection } from './bible.section';
import { DigestSection } from './digest.section';
import { GlossarySection } from './glossary.section';
import { HudSection } from './hud.section';
import { LocationSection } from './location.section';
import { NpcSection } from './npc.section';
import { PreviouslySection } from './previously.section';
import { DEFAULT_RECALL_POOL, RecallSection } from './recall.section';
import { RecentSection } from './recent.section';
import { SceneSection } from './scene.section';
import { StateSection } from './state.section';
import { WorldSection } from './world.section';

/** What a section is built from: the readers and services ContextModule injects. */
export interface SectionDeps {
  counter: TokenCounter;
  clock: Clock;
  campaigns: CampaignReader;
  memories: MemoryReader;
  layers: LayersReader;
  snapshots: SnapshotStore;
  index: SearchIndex;
}

export interface SectionSpec {
  /** The agents whose preset holds the section when `include=` does not say (DESIGN §8). */
  agents: readonly AgentKind[];
  /**
   * The state rows the section reads beyond `head`, players and NPCs (always read: the audience is resolved against
   * them). An as-of context assembles its past state from just these (DESIGN §10): a kind left out reads as empty.
   */
  stateKinds: readonly StateKind[];
  build(deps: SectionDeps, config: AppConfig): ContextSection;
}

const ALL = ['narrative', 'dm', 'player', 'npc'] as const;
const TABLE = ['dm', 'player', 'npc'] as const;

/**
 * Every context section, one line each: a new section is its file plus one line here (and its key in SECTION_ORDER,
 * which the compiler then holds this table to). Keys print in SECTION_ORDER, not in this table's order.
 */
export const SECTIONS: { [K in SectionKey]: SectionSpec } = {
  bible: { agents: TABLE, stateKinds: ['bible'], build: () => new BibleSection() },
  glossary: { agents: TABLE, stateKinds: ['glossary'], build: (d) => new GlossarySection(d.layers) },
  hud: { agents: ['player', 'npc'], stateKinds: [], build: (d, c) => new HudSection(d.counter, c.hudMaxTokens) },
  digest: {
    agents: [...TABLE, 'agent'],
    stateKinds: ['fact'],
    build: (d, c) => new DigestSection(d.counter, d.clock, c.digestMaxTokens),
  },
  scene: {
    agents: TABLE,
    stateKinds: ['location', 'quest'],
    build: (d, c) => new SceneSection(d.counter, c.sceneMaxTokens),
  },
  state: {
    agents: ['agent'],
    // Game-state snapshots are not history: an as-of context leaves the section out.
    stateKinds: [],
    build: (d, c) =>
      new StateSection(d.snapshots, d.counter, d.clock, { tickSeconds: c.tickSeconds, maxTokens: c.stateMaxTokens }),
  },
  previously: { agents: TABLE, stateKinds: [], build: (d) => new PreviouslySection(d.layers) },
  location: { agents: ALL, stateKinds: [], build: (d) => new LocationSection(d.memories, d.campaigns) },
  npc: { agents: ALL, stateKinds: [], build: (d) => new NpcSection(d.memories, d.campaigns) },
  world: { agents: ALL, stateKinds: [], build: (d) => new WorldSection(d.memories, d.campaigns) },
  recall: {
    agents: TABLE,
    stateKinds: ['glossary'],
    build: (d, c) =>
      new RecallSection(d.index, d.campaigns, d.memories, d.layers, {
        limit: c.recallLimit,
        pool: DEFAULT_RECALL_POOL,
      }),
  },
  recent: {
    agents: [...TABLE, 'agent'],
    stateKinds: ['location'],
    build: (d, c) =>
      new RecentSection(d.campaigns, d.counter, {
        recentMessages: c.contextRecentMessages,
        hotRounds: c.hotRounds,
      }),
  },
};

/**
 * The state kinds an as-of context of these sections assembles: `head`, players and NPCs, and what each section reads
 * (so that a narrative context does not read the quest log, and none the completed encounters or round ends).
 */
export function stateKindsOf(keys: readonly SectionKey[]): StateKind[] {
  const kinds = new Set<StateKind>(['head', 'player', 'npc']);
  for (const key of keys) for (const kind of SECTIONS[key].stateKinds) kinds.add(kind);
  return [...kinds];
}

/** Sections each agent gets when `include=` does not say (DESIGN §8), in SECTION_ORDER. */
export const PRESETS = Object.fromEntries(
  AGENTS.map((agent) => [agent, SECTION_ORDER.filter((k) => SECTIONS[k].agents.includes(agent))]),
) as Record<AgentKind, SectionKey[]>;

/**
 * Over budget, entries go in this order; sections not listed are never dropped. `keepNewest`: Recent Messages stops at
 * its newest MIN_RECENT_MESSAGES, which go last of all.
 */
export const DROP_ORDER: { keys: SectionKey[]; keepNewest?: true }[] = [
  { keys: ['recent'], keepNewest: true },
  { keys: ['recall'] },
  // §13: Glossary terms past GLOSSARY_MAX_TOKENS go like memories, least recently used first.
  { keys: ['location', 'npc', 'world', 'glossary'] },
  { keys: ['recent'] },
];

/** Every section of SECTION_ORDER, built over the given readers and configuration. */
export function buildSections(deps: SectionDeps, config: AppConfig): ContextSection[] {
  return SECTION_ORDER.map((key) => SECTIONS[key].build(deps, config));
}
