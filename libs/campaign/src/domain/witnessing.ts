import { CampaignState, Message } from './state';

/** Characters that can be a context's `viewer` (DESIGN §8). */
export type ViewerKind = 'player' | 'npc';

/** Players and NPCs live in separate id spaces, so a witness is named by kind and id. */
export const viewerKey = (kind: ViewerKind, id: string): string => `${kind}:${id}`;

/**
 * The witness key of the public view (DESIGN §8, a context without a viewer): public messages, and memories built
 * from public messages only. Never a character's key (those are `player:`/`npc:`-prefixed).
 */
export const PUBLIC_WITNESS = '*public';

// State documents written before players existed have no map.
const players = (state: CampaignState): Record<string, unknown> => state.players ?? {};

/** §8 split parties: where a player is — its own location when placed apart, else the party's. */
export function playerLocation(state: CampaignState, player: { locationId?: string }): string | null {
  return player.locationId ?? state.currentLocationId;
}

/** True when `id` names a registered player or NPC (a valid `audience` entry). */
export function isCharacter(state: CampaignState, id: string): boolean {
  return Object.hasOwn(players(state), id) || Object.hasOwn(state.npcs, id);
}

/** The kind of character `id` is, players first; null when it is neither. */
export function characterKind(state: CampaignState, id: string, prefer?: ViewerKind): ViewerKind | null {
  const isPlayer = Object.hasOwn(players(state), id);
  const isNpc = Object.hasOwn(state.npcs, id);
  if (prefer) return (prefer === 'player' ? isPlayer : isNpc) ? prefer : null;
  return isPlayer ? 'player' : isNpc ? 'npc' : null;
}

/**
 * Who witnessed a message, judged from the state when it was recorded (DESIGN §8), as sorted viewer keys.
 * Public: players travel with the party, NPCs are where their `locationId` says (nowhere witnesses nothing);
 * private: exactly its audience; dm: nobody but the dm agent, which is never listed.
 */
export function witnessesOf(
  state: CampaignState,
  message: Pick<Message, 'visibility' | 'audience' | 'locationId'> & { speaker?: string | null },
): string[] {
  const keys = new Set<string>();
  // §8 "a speaker witnesses what it says", whatever the visibility (a whisper, even a dm-only line).
  for (const key of speakerKeys(state, message.speaker)) keys.add(key);
  if (message.visibility === 'private') {
    for (const id of message.audience) {
      if (Object.hasOwn(players(state), id)) keys.add(viewerKey('player', id));
      if (Object.hasOwn(state.npcs, id)) keys.add(viewerKey('npc', id));
    }
  } else if (message.visibility === 'public') {
    // §8 split parties: each player witnesses by its own location.
    for (const p of Object.values(state.players ?? {}))
      if (playerLocation(state, p) === message.locationId) keys.add(viewerKey('player', p.id));
    if (message.locationId !== null) {
      for (const npc of Object.values(state.npcs))
        if (npc.locationId === message.locationId) keys.add(viewerKey('npc', npc.id));
    }
  }
  return [...keys].sort();
}

/** The characters a message's `speaker` names: id, name or alias, case-insensitive, the whole string. */
export function speakerKeys(state: CampaignState, speaker: string | null | undefined): string[] {
  const said = speaker?.trim().toLowerCase();
  if (!said) return [];
  const names = (c: { id: string; name: string; aliases?: string[] }) =>
    [c.id, c.name, ...(c.aliases ?? [])].map((n) => n.trim().toLowerCase());
  return [
    ...Object.values(state.players ?? {})
      .filter((p) => names(p).includes(said))
      .map((p) => viewerKey('player', p.id)),
    ...Object.values(state.npcs)
      .filter((n) => names(n).includes(said))
      .map((n) => viewerKey('npc', n.id)),
  ];
}

/** The round current at game version `version` (its events see this round): 1 + rounds ended before it. */
export function roundAt(state: CampaignState, version: number): number {
  return 1 + (state.roundEnds ?? []).filter((v) => v < version).length;
}
