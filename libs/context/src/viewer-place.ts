import { CampaignState, playerLocation } from '@app/campaign';
import { Audience } from './context.types';

/**
 * Where a context is seen from (§8 split parties): a player viewer's own location, else the campaign's current one
 * (the party's; an NPC viewer's memory sections read the party's scene as before).
 */
export function placeOf(state: CampaignState, audience?: Audience): string | null {
  const viewer = audience?.viewer;
  const player = viewer?.kind === 'player' ? state.players?.[viewer.id] : undefined;
  return player ? playerLocation(state, player) : state.currentLocationId;
}
