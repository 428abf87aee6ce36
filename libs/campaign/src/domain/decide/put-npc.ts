import { conflict } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { CampaignState } from '../state';
import { requireLocation, sameList } from './require';

export function putNpc(state: CampaignState, command: CommandOf<'PutNpc'>): GameEvent[] {
  const prev = state.npcs[command.npcId];
  // One id, one character: an NPC sharing a player's id would read as that player in audiences and keys.
  if (!prev && Object.hasOwn(state.players ?? {}, command.npcId)) {
    throw conflict('CHARACTER_ID_TAKEN', `${command.npcId} is a player; an NPC needs an id of its own`);
  }
  const locationId = command.locationId === undefined ? (prev?.locationId ?? null) : command.locationId;
  if (locationId !== null) requireLocation(state, locationId);
  const aliases = command.aliases ?? prev?.aliases ?? [];
  const base = { npcId: command.npcId, name: command.name, aliases, locationId };
  if (!prev) return [{ type: 'NpcRegistered', data: base }];
  if (prev.name === base.name && prev.locationId === locationId && sameList(prev.aliases, aliases)) return [];
  return [{ type: 'NpcUpdated', data: { ...base, fromLocationId: prev.locationId } }];
}
