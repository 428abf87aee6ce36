import { CampaignState } from '@app/campaign';
import { Cursors } from '@app/memory';

const byId = <T extends { id: string }>(xs: T[]) => [...xs].sort((a, b) => a.id.localeCompare(b.id));

/** The campaign as GET /v1/campaigns/:cid shows it (DESIGN §3). */
export function campaignView(state: CampaignState, processedVersion: number, cursors: Cursors) {
  return {
    id: state.id,
    name: state.name,
    version: state.version,
    processedVersion,
    currentLocationId: state.currentLocationId,
    currentActId: state.currentActId,
    round: state.round,
    settings: { ...state.settings, clock: state.settings.clock ?? 'story' },
    messageCount: state.messageCount,
    locations: byId(Object.values(state.locations)).map((l) => ({
      id: l.id,
      name: l.name,
      dangerLevel: l.dangerLevel,
      completedEncounters: l.completedEncounters,
    })),
    npcs: byId(Object.values(state.npcs)),
    quests: byId(Object.values(state.quests)),
    cursors,
    createdAt: state.createdAt,
  };
}

export const emptyCursors = (): Cursors => ({ world: -1, locations: {}, npcs: {} });
