import type { CampaignState, GameEvent, StoredMessage } from '@app/campaign';
import type { SummaryOutcome } from '@app/summarizer';
import { memoryId, MemoryEvent } from '../memory-events';
import { isPublic, Prompt, ScopeTask, Trigger, TriggerOptions, TriggerRun } from './trigger';

/** What a scene trigger summarizes: the window, and where the scope's cursor moves once it is recorded. */
export interface Selected {
  window: StoredMessage[];
  /** The last index the cursor moves over (a location or world memory moves over its left-out secrets too). */
  moveTo: number;
}

/** A trigger that records one memory per task (location, NPC, world, DESIGN §2): what it selects, how it words it. */
export interface SceneTrigger<E extends GameEvent> {
  readonly name: string;
  plan(event: E, options: TriggerOptions): ScopeTask[];
  select(task: ScopeTask, run: TriggerRun, cursor: number): Promise<Selected>;
  prompt(task: ScopeTask, state: CampaignState, window: StoredMessage[], campaignId: string): Prompt;
}

type SceneScope = 'location' | 'npc' | 'world';

/** The public messages of a selection (§8: a location or world memory leaves secrets out). */
export function publicWindow(selection: StoredMessage[]): Selected {
  return { window: selection.filter(isPublic), moveTo: selection.length ? selection[selection.length - 1].index : -1 };
}

/** The task's location by name, when it has one. */
export function locationOf(task: ScopeTask, state: CampaignState): { id: string; name: string } | null {
  if (!task.locationId) return null;
  return { id: task.locationId, name: state.locations[task.locationId]?.name ?? task.locationId };
}

/** The trigger that selects, prompts, and records a MemoryRecorded (or a MemorySkipped). */
export function sceneTrigger<E extends GameEvent>(def: SceneTrigger<E>): Trigger<E> & SceneTrigger<E> {
  return { ...def, run: (task, run) => recordMemory(def, task, run) };
}

async function recordMemory<E extends GameEvent>(
  def: SceneTrigger<E>,
  task: ScopeTask,
  run: TriggerRun,
): Promise<MemoryEvent[]> {
  const scope = task.scope as SceneScope;
  const key = `${scope}:${task.subjectId}`;
  const { window, moveTo } = await def.select(task, run, run.cursors.get(key) ?? -1);
  if (window.length === 0) return [];
  const about = { scope, subjectId: task.subjectId };
  const outcome = await run.attempt(about, def.prompt(task, run.state, window, run.campaignId));
  const through = window[window.length - 1].index;
  if (!outcome.ok) return [run.skipped(about, outcome, window[0].index, through)];
  run.cursors.set(key, moveTo);
  const { campaignId, event } = run;
  run.log(`memory recorded`, {
    campaignId,
    triggerVersion: event.version,
    scope,
    subjectId: task.subjectId,
    correlationId: event.metadata.correlationId,
    messages: window.length,
    attempts: outcome.attempts,
  });
  return [memoryRecorded(run, task, window, outcome, moveTo)];
}

function memoryRecorded(
  { campaignId, event }: TriggerRun,
  task: ScopeTask,
  window: StoredMessage[],
  outcome: SummaryOutcome & { ok: true },
  moveTo: number,
): MemoryEvent {
  const scope = task.scope as SceneScope;
  const since = window[0];
  return {
    type: 'MemoryRecorded',
    data: {
      memoryId: memoryId(campaignId, event.version, scope, task.subjectId),
      scope,
      subjectId: task.subjectId,
      summary: outcome.text,
      tags: task.tags,
      locationId: task.locationId,
      npcIds: scope === 'npc' ? [task.subjectId] : [],
      questId: task.questId,
      encounterId: task.encounterId,
      sinceMessageIndex: since.index,
      throughMessageIndex: window[window.length - 1].index,
      sinceTimestamp: since.at,
      // §8: dated in the story's time, the `at` of the last message summarized (replay-stable all the same).
      createdAt: window[window.length - 1].at,
      triggerVersion: event.version,
      cursor: moveTo,
      inputIndexes: window.map((m) => m.index),
      attempts: outcome.attempts,
      inputTokens: outcome.inputTokens,
      outputTokens: outcome.outputTokens,
    },
  };
}
