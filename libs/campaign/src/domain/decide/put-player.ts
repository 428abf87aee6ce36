import { conflict, invalid } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';
import { PlayerData } from '../world-state';
import { requireLocation } from './require';

export function putPlayer(state: CampaignState, c: CommandOf<'PutPlayer'>): GameEvent[] {
  if (state.npcs[c.playerId])
    throw conflict('CHARACTER_ID_TAKEN', `${c.playerId} is an NPC; a player needs an id of its own`);
  const labels = (c.stats ?? []).map((s) => s.label);
  if (new Set(labels).size !== labels.length) throw invalid('DUPLICATE_STAT_LABEL', 'stat labels must be unique');
  const prev = state.players?.[c.playerId];
  if (c.locationId) requireLocation(state, c.locationId);
  // §8 split parties: a location places the player apart, null brings it back, absent keeps where it is.
  const locationId = c.locationId === undefined ? prev?.locationId : (c.locationId ?? undefined);
  const data: PlayerData = {
    playerId: c.playerId,
    name: c.name,
    aliases: c.aliases ?? prev?.aliases ?? [],
    stats: c.stats ?? prev?.stats ?? [],
    ...(locationId !== undefined ? { locationId } : {}),
  };
  if (!prev) return [{ type: 'PlayerRegistered', data }];
  if (
    prev.name === data.name &&
    prev.locationId === data.locationId &&
    JSON.stringify([prev.aliases, prev.stats]) === JSON.stringify([data.aliases, data.stats])
  )
    return [];
  return [{ type: 'PlayerUpdated', data }];
}
