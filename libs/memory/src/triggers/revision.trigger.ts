import type { GameEvent, StoredMessage } from '@app/campaign';
import { capSentences } from '@app/summarizer';
import type { SummaryOutcome } from '@app/summarizer';
import { MemoryEvent, MemoryScope, PUBLIC_SUMMARY_SUBJECT, summarySubject } from '../memory-events';
import { location } from './location.trigger';
import { npc } from './npc.trigger';
import type { SceneTrigger } from './scene-memory';
import type { Fires, ScopeTask, Trigger, TriggerRun, WithheldMemory, WithheldSummary } from './trigger';
import { toTranscript } from './trigger';
import { world, WorldEvent } from './world.trigger';

/** The retraction itself, and the events that already fire a memory (to retry a failed revision). */
export type RevisionEvent = Fires<'MessagesRetracted' | 'LocationChanged' | 'RoundEnded'> | WorldEvent;

/** Each memory scope's trigger: a revision is worded by the prompt the memory was recorded with. */
const SCENES: Record<MemoryScope, SceneTrigger<GameEvent>> = {
  location: location as unknown as SceneTrigger<GameEvent>,
  npc: npc as unknown as SceneTrigger<GameEvent>,
  world: world as unknown as SceneTrigger<GameEvent>,
};

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
export const revision: Trigger<RevisionEvent> = {
  name: 'revision',
  plan: () => [TASK],
  run: async (_task, run) => {
    const withheld = await run.reads.withheld();
    const out: MemoryEvent[] = [];
    for (const memory of withheld.memories) out.push(await reviseMemory(memory, run));
    const shared = sharedPublic(withheld.summaries, run);
    for (const summary of withheld.summaries) {
      if (summary === shared?.public) continue;
      const revised = await reviseSummary(summary, run, summary === shared?.dm);
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

/** One withheld memory: withdrawn without surviving input, else its own trigger's prompt over exactly what survives. */
async function reviseMemory(memory: WithheldMemory, run: TriggerRun): Promise<MemoryEvent> {
  const triggerVersion = run.event.version;
  const surviving = await run.reads.messagesByIndex(memory.inputIndexes);
  if (surviving.length === 0)
    return { type: 'MemoryWithdrawn', data: { memoryId: memory.id, reason: 'retracted', triggerVersion } };
  const scene = await sceneOf(memory, run);
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
async function sceneOf(memory: WithheldMemory, run: TriggerRun) {
  const original = await run.reads.event(memory.triggerVersion);
  const trigger = SCENES[memory.scope];
  if (!original || !trigger) return null;
  const event = { type: original.type, data: original.data } as GameEvent;
  const task = trigger.plan(event, run.options).find((t: ScopeTask) => t.subjectId === memory.subjectId);
  if (!task) return null;
  return { trigger, task, state: await run.reads.stateAt(memory.triggerVersion) };
}

function skippedRevision(
  run: TriggerRun,
  memory: WithheldMemory,
  outcome: SummaryOutcome & { ok: false },
  surviving: StoredMessage[],
): MemoryEvent {
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
 * The dm's and the public "Previously" withheld together when they were one summary (`alsoPublic`, §8): the same base,
 * the same public inputs, the same cursor. Rewritten once, as the dm's that is the public one too — as they were
 * written — not once per key.
 */
function sharedPublic(summaries: WithheldSummary[], run: TriggerRun) {
  if (run.state.settings.perRoleMemory) return null;
  const dm = summaries.find((s) => s.viewer === null && !s.publicView);
  const pub = summaries.find((s) => s.publicView);
  if (!dm || !pub) return null;
  const same =
    dm.base === pub.base &&
    dm.throughMessageIndex === pub.throughMessageIndex &&
    dm.inputIndexes.length === pub.inputIndexes.length &&
    dm.inputIndexes.every((i, n) => i === pub.inputIndexes[n]);
  return same ? { dm, public: pub } : null;
}

/**
 * One withheld "Previously" key: the newest summary no retraction withheld plus the surviving messages the withheld
 * ones covered; none survives → the base's text again, no call (the key is live again). No base and nothing
 * surviving: nothing to say, the key stays without a summary until the next rewrite.
 */
async function reviseSummary(s: WithheldSummary, run: TriggerRun, alsoPublic = false): Promise<MemoryEvent | null> {
  const surviving = await run.reads.messagesByIndex(s.inputIndexes);
  if (surviving.length === 0 && s.base === null) return null;
  const subject = s.publicView ? PUBLIC_SUMMARY_SUBJECT : summarySubject(s.viewer);
  const maxWords = run.options.rollingSummaryWords;
  const common = {
    viewer: s.viewer,
    ...(s.publicView ? { publicView: true } : {}),
    ...(alsoPublic ? { alsoPublic: true } : {}),
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
