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

/** One scope to summarize, derived from a trigger event. */
export interface ScopeTask {
  scope: MemoryScope;
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
}

export interface TriggerEvent {
  type: string;
  data: Record<string, any>;
}

/** The scopes a game event triggers, in the order they must be handled (DESIGN §2). */
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
