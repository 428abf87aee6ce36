import { GameEvent } from '../events';
import { CampaignState } from '../state';

export function endRound(state: CampaignState): GameEvent[] {
  return [{ type: 'RoundEnded', data: { round: state.round } }];
}
