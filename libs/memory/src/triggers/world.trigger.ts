import type { CampaignState, EventOf } from '@app/campaign';
import type { ScopeTask } from './trigger';
import { toTranscript } from './trigger';
import { publicWindow, sceneTrigger } from './scene-memory';

/** The game events that record a world memory. */
export type WorldEvent = EventOf<'ObjectiveCompleted' | 'QuestCompleted' | 'ActProgressed' | 'LocationStateUpdated'>;

type WorldTask = ScopeTask & { worldKind: string; words: (state: CampaignState) => string };

/** A world task: its kind (the summarizer's `kind`, the `world:<kind>` tag), its other tags, and its words. */
function worldTask(
  kind: string,
  ids: Partial<ScopeTask>,
  tags: string[],
  words: (state: CampaignState) => string,
): WorldTask {
  const task = { scope: 'world' as const, subjectId: 'world', locationId: null, questId: null, encounterId: null };
  return { ...task, worldKind: kind, tags: [`world:${kind}`, ...tags], words, ...ids };
}

const questName = (state: CampaignState, questId: string) => state.quests[questId]?.name ?? questId;
const placeName = (state: CampaignState, locationId: string) => state.locations[locationId]?.name ?? locationId;

/**
 * §2 world memories, one entry per world event: kind, tags and wording side by side. The mapped type makes a new
 * member of WorldEvent without an entry a compile error.
 */
export const WORLD: { [K in WorldEvent['type']]: (data: EventOf<K>['data']) => WorldTask[] } = {
  ObjectiveCompleted: ({ questId, objectiveId }) => [
    worldTask('objective_completed', { questId }, [`quest:${questId}`, `objective:${objectiveId}`], (s) => {
      const objective = s.quests[questId]?.objectives.find((o) => o.id === objectiveId);
      return `Objective "${objective?.name ?? objectiveId}" of quest "${questName(s, questId)}" completed`;
    }),
  ],
  QuestCompleted: ({ questId }) => [
    worldTask(
      'quest_completed',
      { questId },
      [`quest:${questId}`],
      (s) => `Quest "${questName(s, questId)}" completed`,
    ),
  ],
  ActProgressed: ({ fromActId, toActId }) => [
    worldTask(
      'act_progressed',
      {},
      [`act:${toActId}`],
      () => `The story moved from act ${fromActId ?? '(none)'} to act ${toActId}`,
    ),
  ],
  LocationStateUpdated: ({ locationId, dangerLevel, completedEncounterId }) => [
    ...(dangerLevel === 'CLEARED'
      ? [
          worldTask(
            'location_cleared',
            { locationId },
            [`location:${locationId}`],
            (s) => `${placeName(s, locationId)} was cleared`,
          ),
        ]
      : []),
    ...(completedEncounterId
      ? [
          worldTask(
            'encounter_completed',
            { locationId, encounterId: completedEncounterId },
            [`location:${locationId}`, `encounter:${completedEncounterId}`],
            (s) => `Encounter ${completedEncounterId} at ${placeName(s, locationId)} completed`,
          ),
        ]
      : []),
  ],
};

/** §2: a world event records a memory of every public message since the world cursor, wherever it was said. */
export const world = sceneTrigger<WorldEvent>({
  name: 'world',
  plan: (event) => (WORLD[event.type] as (data: WorldEvent['data']) => WorldTask[])(event.data),
  select: async (_task, run, cursor) => publicWindow(await run.reads.messages({ afterIndex: cursor })),
  prompt: (task, state, window, campaignId) => (summarizer, signal) => {
    const input = { campaignId, kind: task.worldKind!, event: task.words!(state), messages: window.map(toTranscript) };
    return summarizer.summarizeWorld(input, signal);
  },
});
