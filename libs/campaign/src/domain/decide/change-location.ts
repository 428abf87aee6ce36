import { conflict, invalid, notFound } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';
import { playerLocation } from '../witnessing';
import { requireLocation } from './require';

/** NPCs at `from` when the move is decided (their memories trigger from it). */
const npcsAt = (state: CampaignState, from: string | null) =>
  from === null
    ? []
    : Object.values(state.npcs)
        .filter((n) => n.locationId === from)
        .map((n) => n.id)
        .sort();

/**
 * Moves the party (DESIGN §2), or with `players` only those players (§8 split parties): one LocationChanged per
 * location they leave, saying whether the last player left it (`sceneEnded`: then its location memory is recorded).
 */
export function changeLocation(state: CampaignState, command: CommandOf<'ChangeLocation'>): GameEvent[] {
  requireLocation(state, command.toLocationId);
  const to = command.toLocationId;
  if (command.players === undefined) return moveParty(state, to);
  const players = state.players ?? {};
  if (new Set(command.players).size !== command.players.length)
    throw invalid('DUPLICATE_PLAYER', 'players: each player at most once');
  for (const id of command.players)
    if (!Object.hasOwn(players, id)) throw notFound('PLAYER_NOT_FOUND', `players: ${id} is not a known player`);
  const moving = command.players.filter((id) => playerLocation(state, players[id]) !== to);
  if (moving.length === 0) throw conflict('ALREADY_THERE', `those players are already at ${to}`);
  // Players who followed the party and stay behind keep where they are when the campaign's location moves on.
  const placed: Record<string, string | null> = {};
  for (const p of Object.values(players))
    if (!command.players.includes(p.id) && p.locationId === undefined && state.currentLocationId !== to)
      placed[p.id] = state.currentLocationId;
  for (const id of moving) placed[id] = to;
  const froms = [...new Set(moving.map((id) => playerLocation(state, players[id])))];
  return froms.map((from, i) => {
    const leaving = moving.filter((id) => playerLocation(state, players[id]) === from);
    const staying = Object.values(players).filter(
      (p) => !command.players!.includes(p.id) && playerLocation(state, p) === from,
    );
    return {
      type: 'LocationChanged' as const,
      data: {
        fromLocationId: from,
        toLocationId: to,
        npcsPresent: npcsAt(state, from),
        players: leaving,
        sceneEnded: staying.length === 0,
        ...(i === 0 ? { playerLocations: placed } : {}),
      },
    };
  });
}

/** The whole party moves (as before players could be split): players placed apart rejoin it. */
function moveParty(state: CampaignState, to: string): GameEvent[] {
  const apart = Object.values(state.players ?? {}).filter((p) => p.locationId !== undefined);
  if (state.currentLocationId === to && apart.every((p) => p.locationId === to))
    throw conflict('ALREADY_THERE', `the party is already at ${to}`);
  const from = state.currentLocationId;
  const rejoin = apart.length ? { playerLocations: Object.fromEntries(apart.map((p) => [p.id, null])) } : {};
  return [
    {
      type: 'LocationChanged',
      data: { fromLocationId: from, toLocationId: to, npcsPresent: npcsAt(state, from), ...rejoin },
    },
  ];
}
