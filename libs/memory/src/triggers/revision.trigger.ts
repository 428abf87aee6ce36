import type { Fires, Trigger } from './trigger';
import type { WorldEvent } from './world.trigger';

/**
 * §10 revision of what a retraction withheld. It fires on the retraction itself and, to retry failed revisions,
 * on the events that already fire a memory. Lane 0's stub plans nothing; lane 3 writes the trigger.
 */
export type RevisionEvent = Fires<'MessagesRetracted' | 'LocationChanged' | 'RoundEnded'> | WorldEvent;

export const revision: Trigger<RevisionEvent> = {
  name: 'revision',
  plan: () => [],
  run: async () => [],
};
