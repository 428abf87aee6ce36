import type { Fires } from './trigger';
import { toTranscript } from './trigger';
import { locationOf, publicWindow, sceneTrigger } from './scene-memory';

/** §2: leaving a location records a memory of its public messages since its cursor (moving from nowhere: none). */
export const location = sceneTrigger<Fires<'LocationChanged'>>({
  name: 'location',
  plan: ({ data }) => {
    const from = data.fromLocationId;
    // §8 split parties: the scene at `from` ends when its last player leaves, not before.
    if (from === null || data.sceneEnded === false) return [];
    return [
      {
        scope: 'location',
        subjectId: from,
        tags: [`location:${from}`],
        locationId: from,
        questId: null,
        encounterId: null,
      },
    ];
  },
  select: async (task, run, cursor) =>
    publicWindow(await run.reads.messages({ locationId: task.locationId ?? undefined, afterIndex: cursor })),
  prompt: (task, state, window, campaignId) => (summarizer, signal) =>
    summarizer.summarizeLocation(
      { campaignId, location: locationOf(task, state)!, messages: window.map(toTranscript) },
      signal,
    ),
});
