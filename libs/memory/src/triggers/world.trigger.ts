import type { CampaignState, EventOf, GameEventType } from '@app/campaign';
import type { ScopeTask } from './trigger';
import { toTranscript } from './trigger';
import { publicWindow, sceneTrigger } from './scene-memory';

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
 * §2 world memories, one entry per game event that records one: kind, tags and wording side by side. The entry's
 * key types its data (a key that is no game event does not compile); WorldEvent is read off the keys.
 */
export const WORLD = {
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
} satisfies { [K in GameEventType]?: (data: EventOf<K>['data']) => WorldTask[] };

/** The game events that record a world memory: the keys of WORLD. */
export type WorldEvent = EventOf<keyof typeof WORLD>;

/** WORLD's entry for the event (the map's key and the event's type are the same string). */
const worldTasks = <E extends WorldEvent>(event: E) =>
  (WORLD[event.type] as (data: E['data']) => WorldTask[])(event.data);

/** §2: a world event records a memory of every public message since the world cursor, wherever it was said. */
export const world = sceneTrigger<WorldEvent>({
  name: 'world',
  plan: (event) => worldTasks(event),
  select: async (_task, run, cursor) => publicWindow(await run.reads.messages({ afterIndex: cursor })),
  prompt: (task, state, window, campaignId) => (summarizer, signal) => {
    const input = { campaignId, kind: task.worldKind!, event: task.words!(state), messages: window.map(toTranscript) };
    return summarizer.summarizeWorld(input, signal);
  },
});
