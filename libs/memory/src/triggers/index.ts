import type { GameEvent } from '@app/campaign';
import { glossary } from './glossary.trigger';
import { location } from './location.trigger';
import { npc } from './npc.trigger';
import { revision } from './revision.trigger';
import { summary } from './summary.trigger';
import { ScopeTask, Trigger, TriggerOptions } from './trigger';
import { world } from './world.trigger';

export * from './trigger';
export { COINING_ROLES, glossary, newTerms } from './glossary.trigger';
export { location } from './location.trigger';
export { mentionMatcher, mentions, npc, npcWindow, NpcRef, SelectableMessage } from './npc.trigger';
export { revision, RevisionEvent } from './revision.trigger';
export { summary, SummaryEvent } from './summary.trigger';
export { world, WORLD, WorldEvent } from './world.trigger';

/** Pairs an event with the triggers that fire on it; a trigger typed over other events does not compile here. */
const fire = <E extends GameEvent>(_event: E, ...triggers: Trigger<NoInfer<E>>[]): Trigger[] => triggers as Trigger[];

/**
 * The triggers a game event fires, in the order their scopes are handled: memory scopes (DESIGN §2), then the §8
 * layers. Every event type is decided here: a new one without a case is a compile error (the `never` default).
 */
export function triggersFor(e: GameEvent): Trigger[] {
  switch (e.type) {
    case 'LocationChanged':
      return fire(e, location, npc, summary, revision);
    case 'ObjectiveCompleted':
      return fire(e, world, revision);
    case 'QuestCompleted':
    case 'ActProgressed':
      return fire(e, world, summary, revision);
    case 'LocationStateUpdated':
      return fire(e, world, revision);
    case 'RoundEnded':
      return fire(e, summary, revision);
    case 'MessageRecorded':
      return fire(e, glossary);
    case 'MessagesRetracted':
      return fire(e, revision);
    case 'CampaignCreated':
    case 'CampaignSettingsChanged':
    case 'LocationRegistered':
    case 'LocationRenamed':
    case 'NpcRegistered':
    case 'NpcUpdated':
    case 'QuestRegistered':
    case 'BibleUpdated':
    case 'GlossaryTermSet':
    case 'GlossaryTermHidden':
    case 'FactAsserted':
    case 'FactResolved':
    case 'PlayerRegistered':
    case 'PlayerUpdated':
    case 'AccountLoggedIn':
    case 'AccountLoggedOut':
    case 'CampaignForked':
    case 'CampaignRewound':
    case 'MemoryCorrected':
    case 'MemoryDeleted':
    case 'StoryTimeSet':
      return [];
    default: {
      const unhandled: never = e;
      return unhandled;
    }
  }
}

/** Every scope an event fires, each with the trigger that runs it. */
export function planTasks(e: GameEvent, options: TriggerOptions): { trigger: Trigger; task: ScopeTask }[] {
  return triggersFor(e).flatMap((trigger) => trigger.plan(e, options).map((task) => ({ trigger, task })));
}
