import { viewerKey } from '@app/campaign';
import type { Fires, ScopeTask } from './trigger';
import { notDmOnly, toTranscript } from './trigger';
import { locationOf, publicWindow, sceneTrigger } from './scene-memory';

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

/**
 * §2: leaving a location records, for each NPC present there, a memory of what it witnessed and was mentioned in
 * (±1 message), never a dm-only line.
 */
export const npc = sceneTrigger<Fires<'LocationChanged'>>({
  name: 'npc',
  plan: ({ data }) => {
    const from = data.fromLocationId;
    if (from === null) return [];
    return data.npcsPresent.map((npcId): ScopeTask => ({
      scope: 'npc',
      subjectId: npcId,
      tags: [`npc:${npcId}`, `location:${from}`],
      locationId: from,
      questId: null,
      encounterId: null,
    }));
  },
  select: async (task, run, cursor) => {
    const selection = await run.reads.messages({ locationId: task.locationId ?? undefined, afterIndex: cursor });
    const who = run.state.npcs[task.subjectId];
    if (!who) return publicWindow(selection);
    // §8: a scene memory is built from what its subject witnessed, and never from a dm-only message — not even one
    // the NPC spoke itself (the speaker rule makes it a witness of that line, the memory still leaves it out).
    const seen = (await run.reads.witnessed(viewerKey('npc', who.id), selection)).filter(notDmOnly);
    const window = npcWindow(who, seen);
    return { window, moveTo: window.length ? window[window.length - 1].index : -1 };
  },
  prompt: (task, state, window, campaignId) => (summarizer, signal) => {
    const { id, name, aliases } = state.npcs[task.subjectId];
    const input = {
      campaignId,
      npc: { id, name, aliases },
      location: locationOf(task, state),
      messages: window.map(toTranscript),
    };
    return summarizer.summarizeNpc(input, signal);
  },
});

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
  return (
    message.npcIds.includes(npc.id) ||
    matcher(message.content) ||
    (message.speaker !== null && matcher(message.speaker))
  );
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
