import type { GameEvent, StoredMessage } from '@app/campaign';
import { capSentences } from '@app/summarizer';
import type { SummaryOutcome } from '@app/summarizer';
import { PUBLIC_SUMMARY_SUBJECT, summarySubject } from '../memory-events';
import type { RevisionOutcome } from '../revision-events';
import type { SceneTrigger } from './scene-memory';
import type { ScopeTask, Trigger, TriggerOptions, TriggerRun, WithheldMemory, WithheldSummary } from './trigger';
import { toTranscript } from './trigger';

/** The scopes a game event fires, each with the trigger that runs it (index.ts's planTasks). */
export type PlanOf = (e: GameEvent, options: TriggerOptions) => { trigger: Trigger; task: ScopeTask }[];

const TASK: ScopeTask = {
  scope: 'revision',
  subjectId: '*',
  locationId: null,
  questId: null,
  encounterId: null,
  tags: [],
};

/**
 * §10 revision: every memory, "Previously" and glossary term a retraction withheld (at or before this event) is
 * revised from exactly its surviving input, withdrawn when none survives, or left as the game master locked it.
 * Fired by MessagesRetracted, and by the regular triggers so a failed revision is tried again later; with nothing
 * withheld it is one indexed read and no call.
 */
export function revisionTrigger(planOf: PlanOf): Trigger {
  return {
    name: 'revision',
    plan: () => [TASK],
    run: async (_task, run) => {
      const withheld = await run.reads.withheld();
      const out: RevisionOutcome[] = [];
      for (const memory of withheld.memories) out.push(await reviseMemory(planOf, memory, run));
      for (const summary of withheld.summaries) {
        const revised = await reviseSummary(summary, run);
        if (revised) out.push(revised);
      }
      const overrides = run.state.glossary ?? {};
      for (const t of withheld.terms) {
        // A term the game master defined is served from its override: nothing to withdraw.
        if (overrides[t.termKey]?.definition != null) continue;
        const data = { term: t.term, coinedMessageIndex: t.coinedMessageIndex, triggerVersion: run.event.version };
        out.push({ type: 'GlossaryTermWithdrawn', data });
      }
      return out;
    },
  };
}

/** One withheld memory: withdrawn without surviving input, else its own trigger's prompt over exactly what survives. */
async function reviseMemory(planOf: PlanOf, memory: WithheldMemory, run: TriggerRun): Promise<RevisionOutcome> {
  const triggerVersion = run.event.version;
  const surviving = await run.reads.messagesByIndex(memory.inputIndexes);
  if (surviving.length === 0)
    return { type: 'MemoryWithdrawn', data: { memoryId: memory.id, reason: 'retracted', triggerVersion } };
  const scene = await sceneOf(planOf, memory, run);
  const about = { scope: 'revision' as const, subjectId: memory.id };
  const outcome: SummaryOutcome = scene
    ? await run.attempt(about, scene.trigger.prompt(scene.task, scene.state, surviving, run.campaignId))
    : { ok: false, reason: 'its trigger is gone', attempts: 0, inputTokens: 0, outputTokens: 0, calls: [] };
  if (!outcome.ok) return skippedRevision(run, memory, outcome, surviving);
  run.log('memory revised', { campaignId: run.campaignId, triggerVersion, memoryId: memory.id });
  return {
    type: 'MemoryRevised',
    data: {
      memoryId: memory.id,
      summary: outcome.text,
      inputIndexes: surviving.map((m) => m.index),
      revision: memory.revision + 1,
      triggerVersion,
      createdAt: surviving[surviving.length - 1].at,
      attempts: outcome.attempts,
      inputTokens: outcome.inputTokens,
      outputTokens: outcome.outputTokens,
    },
  };
}

/**
 * The memory's own trigger as it ran: its event planned again, the task of the same scope and subject, and the state
 * right after that event — so the revision is worded as the memory was, whatever the worker's lag.
 */
async function sceneOf(planOf: PlanOf, memory: WithheldMemory, run: TriggerRun) {
  const original = await run.reads.event(memory.triggerVersion);
  if (!original) return null;
  const planned = planOf({ type: original.type, data: original.data } as GameEvent, run.options).find(
    (p) => p.task.scope === memory.scope && p.task.subjectId === memory.subjectId,
  );
  const trigger = planned?.trigger as Partial<SceneTrigger<GameEvent>> | undefined;
  if (!planned || !trigger?.prompt) return null;
  const state = await run.reads.stateAt(memory.triggerVersion);
  return { trigger: trigger as SceneTrigger<GameEvent>, task: planned.task, state };
}

function skippedRevision(
  run: TriggerRun,
  memory: WithheldMemory,
  outcome: SummaryOutcome & { ok: false },
  surviving: StoredMessage[],
): RevisionOutcome {
  const { reason, attempts } = outcome;
  const triggerVersion = run.event.version;
  run.log(`revision failed; the memory stays withheld: ${reason}`, {
    campaignId: run.campaignId,
    triggerVersion,
    memoryId: memory.id,
  });
  const data = {
    scope: memory.scope,
    subjectId: memory.subjectId,
    reason,
    attempts,
    triggerVersion,
    sinceMessageIndex: surviving[0].index,
    throughMessageIndex: surviving[surviving.length - 1].index,
    revisionOf: memory.id,
  };
  return { type: 'MemorySkipped', data };
}

/**
 * One withheld "Previously" key: the newest summary no retraction withheld plus the surviving messages the withheld
 * ones covered; none survives → the base's text again, no call (the key is live again). No base and nothing
 * surviving: nothing to say, the key stays without a summary until the next rewrite.
 */
async function reviseSummary(s: WithheldSummary, run: TriggerRun): Promise<RevisionOutcome | null> {
  const surviving = await run.reads.messagesByIndex(s.inputIndexes);
  if (surviving.length === 0 && s.base === null) return null;
  const subject = s.publicView ? PUBLIC_SUMMARY_SUBJECT : summarySubject(s.viewer);
  const maxWords = run.options.rollingSummaryWords;
  const common = {
    viewer: s.viewer,
    ...(s.publicView ? { publicView: true } : {}),
    throughMessageIndex: s.throughMessageIndex,
    triggerVersion: run.event.version,
    createdAt: run.event.recordedAt,
    revision: true as const,
  };
  if (surviving.length === 0) {
    const data = { ...common, summary: s.base!, sinceMessageIndex: s.throughMessageIndex, inputIndexes: [] };
    return { type: 'RollingSummaryUpdated', data: { ...data, attempts: 0, inputTokens: 0, outputTokens: 0 } };
  }
  const input = {
    campaignId: run.campaignId,
    previousSummary: s.base,
    messages: surviving.map(toTranscript),
    maxWords,
    viewer: s.viewer,
    ...(s.publicView ? { publicOnly: true } : {}),
  };
  const about = { scope: 'revision' as const, subjectId: `summary:${subject}` };
  const outcome = await run.attempt(about, (summarizer, signal) => summarizer.summarizeRolling(input, signal));
  const since = surviving[0].index;
  if (!outcome.ok) {
    const { reason, attempts } = outcome;
    const range = { sinceMessageIndex: since, throughMessageIndex: s.throughMessageIndex };
    const data = { scope: 'summary' as const, subjectId: subject, reason, attempts, ...range };
    return { type: 'MemorySkipped', data: { ...data, triggerVersion: run.event.version, revisionOf: about.subjectId } };
  }
  const data = {
    ...common,
    summary: capSentences(outcome.text, maxWords),
    sinceMessageIndex: since,
    inputIndexes: surviving.map((m) => m.index),
    attempts: outcome.attempts,
    inputTokens: outcome.inputTokens,
    outputTokens: outcome.outputTokens,
  };
  return { type: 'RollingSummaryUpdated', data };
}
