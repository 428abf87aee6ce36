import type { MemoryScope } from './memory-events';

/** The fields selection needs from a message (pure: no storage types). */
export interface SelectableMessage {
  index: number;
  content: string;
  speaker: string | null;
  npcIds: string[];
}

export interface NpcRef {
  id: string;
  name: string;
  aliases: string[];
}

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
  /** One-line description of the trigger for the world prompt. */
  description?: string;
  /** Glossary: the new terms the message coined (filled by the worker, which knows the known names). */
  terms?: string[];
}

export interface TriggerOptions {
  /** RoundEnded of a multiple of this rewrites "Previously" (SUMMARY_INTERVAL_ROUNDS). */
  summaryIntervalRounds: number;
}

/** Roles whose words may coin glossary terms (DESIGN §8). */
export const COINING_ROLES: readonly string[] = ['dm', 'narrator', 'npc'];

export interface TriggerEvent {
  type: string;
  data: Record<string, any>;
}

/**
 * §8's layer scopes a game event triggers, handled after its memory scopes: a dm/narrator/npc message scans for
 * glossary terms; "Previously" is rewritten at each RoundEnded of a multiple of the interval and at milestones.
 */
export function planLayerTriggers(event: TriggerEvent, options: TriggerOptions = { summaryIntervalRounds: 4 }): ScopeTask[] {
  const d = event.data;
  const layer = (scope: 'glossary' | 'summary', subjectId: string): ScopeTask => ({ scope, subjectId, locationId: null, questId: null, encounterId: null, tags: [] });
  const tasks: ScopeTask[] = [];
  if (event.type === 'MessageRecorded' && COINING_ROLES.includes(d.role)) tasks.push(layer('glossary', String(d.index)));
  const interval = Math.max(1, Math.floor(options.summaryIntervalRounds));
  const milestone = event.type === 'LocationChanged' || event.type === 'QuestCompleted' || event.type === 'ActProgressed';
  if (milestone || (event.type === 'RoundEnded' && d.round % interval === 0)) tasks.push(layer('summary', '*'));
  return tasks;
}

/** The memory scopes a game event triggers, in the order they must be handled (DESIGN §2). */
export function planTriggers(event: TriggerEvent): ScopeTask[] {
  const d = event.data;
  const world = (kind: string, extra: Partial<ScopeTask>, tags: string[], description: string): ScopeTask => ({
    scope: 'world',
    subjectId: 'world',
    locationId: null,
    questId: null,
    encounterId: null,
    worldKind: kind,
    tags: [`world:${kind}`, ...tags],
    description,
    ...extra,
  });
  switch (event.type) {
    case 'LocationChanged': {
      const from: string | null = d.fromLocationId;
      if (from === null) return [];
      const base = { locationId: from, questId: null, encounterId: null };
      return [
        { scope: 'location', subjectId: from, tags: [`location:${from}`], ...base },
        ...(d.npcsPresent as string[]).map((npcId): ScopeTask => ({ scope: 'npc', subjectId: npcId, tags: [`npc:${npcId}`, `location:${from}`], ...base })),
      ];
    }
    case 'ObjectiveCompleted':
      return [world('objective_completed', { questId: d.questId }, [`quest:${d.questId}`, `objective:${d.objectiveId}`], `Objective ${d.objectiveId} of quest ${d.questId} completed`)];
    case 'QuestCompleted':
      return [world('quest_completed', { questId: d.questId }, [`quest:${d.questId}`], `Quest ${d.questId} completed`)];
    case 'ActProgressed':
      return [world('act_progressed', {}, [`act:${d.toActId}`], `The story moved from act ${d.fromActId ?? '(none)'} to act ${d.toActId}`)];
    case 'LocationStateUpdated': {
      const tasks: ScopeTask[] = [];
      if (d.dangerLevel === 'CLEARED') {
        tasks.push(world('location_cleared', { locationId: d.locationId }, [`location:${d.locationId}`], `Location ${d.locationId} was cleared`));
      }
      if (d.completedEncounterId) {
        tasks.push(
          world('encounter_completed', { locationId: d.locationId, encounterId: d.completedEncounterId }, [`location:${d.locationId}`, `encounter:${d.completedEncounterId}`], `Encounter ${d.completedEncounterId} at ${d.locationId} completed`),
        );
      }
      return tasks;
    }
    default:
      return [];
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A matcher for the NPC's name and aliases as whole words, case-insensitive ("Mira" ≠ "Miranda"). */
export function mentionMatcher(npc: NpcRef): (text: string) => boolean {
  const names = [npc.name, ...npc.aliases].map((n) => n.trim()).filter((n) => n.length > 0);
  if (names.length === 0) return () => false;
  const re = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${names.map(escapeRegExp).join('|')})(?![\\p{L}\\p{N}_])`, 'iu');
  return (text) => re.test(text);
}

/** True when the message mentions the NPC by id, name or alias (DESIGN §2). */
export function mentions(npc: NpcRef, message: SelectableMessage, matcher = mentionMatcher(npc)): boolean {
  return message.npcIds.includes(npc.id) || matcher(message.content) || (message.speaker !== null && matcher(message.speaker));
}

/** Each mentioning message plus its neighbours within the selection; [] when the NPC is not mentioned. */
export function npcWindow<M extends SelectableMessage>(npc: NpcRef, selection: M[]): M[] {
  const matcher = mentionMatcher(npc);
  const keep = new Set<number>();
  selection.forEach((m, i) => {
    if (!mentions(npc, m, matcher)) return;
    for (const j of [i - 1, i, i + 1]) if (j >= 0 && j < selection.length) keep.add(j);
  });
  return selection.filter((_, i) => keep.has(i));
}
