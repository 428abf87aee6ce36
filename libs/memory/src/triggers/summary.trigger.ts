import { CampaignState, roundAt, viewerKey } from '@app/campaign';
import { capSentences } from '@app/summarizer';
import { playerIdsOf } from '../glossary/known-terms';
import type { RollingSummaryView } from '../layers.reader';
import {
  MemoryEvent,
  PUBLIC_SUMMARY_KEY,
  PUBLIC_SUMMARY_SUBJECT,
  RollingSummaryUpdatedData,
  summarySubject,
} from '../memory-events';
import type { Fires, Trigger, TriggerRun } from './trigger';
import { isPublic, toTranscript } from './trigger';

/** The events that rewrite "Previously": every RoundEnded of a multiple of the interval, and the milestones. */
export type SummaryEvent = Fires<'RoundEnded' | 'LocationChanged' | 'QuestCompleted' | 'ActProgressed'>;

/**
 * §8 "Previously": the previous summary + the messages after cursor `summary`, recorded before the trigger, that are
 * no longer hot in the round after it. Everyone's (the dm's), plus one per player over what it witnessed with
 * perRoleMemory, else a public one.
 */
export const summary: Trigger<SummaryEvent> = {
  name: 'summary',
  plan: (event, options) => {
    const interval = Math.max(1, Math.floor(options.summaryIntervalRounds));
    if (event.type === 'RoundEnded' && event.data.round % interval !== 0) return [];
    return [{ scope: 'summary', subjectId: '*', locationId: null, questId: null, encounterId: null, tags: [] }];
  },
  run: (_task, run) => rewriteSummaries(run),
};

/** One "Previously" the worker keeps: the dm's (viewer null), a player's, or the public one. */
interface SummaryTarget {
  viewer: string | null;
  publicView?: true;
}

/** A target's rewrite: its outcome, and whether the dm's summary may serve as the public one too. */
interface Rewrite {
  event: MemoryEvent;
  data: RollingSummaryUpdatedData | null;
  sharing: boolean;
}

function targetsOf(state: CampaignState): SummaryTarget[] {
  const players = playerIdsOf(state).map((viewer) => ({ viewer }));
  return [
    { viewer: null },
    ...(state.settings.perRoleMemory ? players : [{ viewer: null, publicView: true as const }]),
  ];
}

async function rewriteSummaries(run: TriggerRun): Promise<MemoryEvent[]> {
  const { event, state } = run;
  const roundAfter = event.type === 'RoundEnded' ? Number(event.data.round) + 1 : roundAt(state, event.version);
  const maxRound = roundAfter - run.options.hotRounds;
  if (maxRound < 1) return [];
  const out: MemoryEvent[] = [];
  // The dm's summary when it also serves as the public one (data null: its rewrite failed, the public one waits too).
  let shared: { data: RollingSummaryUpdatedData | null } | null = null;
  for (const target of targetsOf(state)) {
    if (target.publicView && shared) {
      // The dm's summary read only public lines from where the public one stands: it is the public one too.
      if (shared.data) {
        shared.data.alsoPublic = true;
        run.cursors.set(`summary:${PUBLIC_SUMMARY_SUBJECT}`, shared.data.throughMessageIndex);
      }
      continue;
    }
    const rewrite = await rewriteOne(run, target, maxRound);
    if (!rewrite) continue;
    if (rewrite.sharing) shared = { data: rewrite.data };
    out.push(rewrite.event);
  }
  return out;
}

/** One target's rewrite over its messages after its cursor; null when there is nothing new to summarize. */
async function rewriteOne(run: TriggerRun, target: SummaryTarget, maxRound: number): Promise<Rewrite | null> {
  const { viewer } = target;
  const subject = target.publicView ? PUBLIC_SUMMARY_SUBJECT : summarySubject(viewer);
  const witness = viewer === null ? undefined : viewerKey('player', viewer);
  const cursor = run.cursors.get(`summary:${subject}`) ?? -1;
  const selected = await run.reads.messages({ afterIndex: cursor, maxRound, witnessedBy: witness });
  const selection = target.publicView ? selected.filter(isPublic) : selected;
  if (selection.length === 0) return null;
  const previous = await run.reads.latestSummary(target.publicView ? PUBLIC_SUMMARY_KEY : (witness ?? '*'));
  const maxWords = run.options.rollingSummaryWords;
  const input = {
    campaignId: run.campaignId,
    previousSummary: previous?.summary ?? null,
    messages: selection.map(toTranscript),
    maxWords,
    viewer,
    ...(target.publicView ? { publicOnly: true } : {}),
  };
  const perRole = run.state.settings.perRoleMemory;
  const dmOfPublicLines = viewer === null && !target.publicView && !perRole && selection.every(isPublic);
  const sharing = dmOfPublicLines && (await publicInStep(run, cursor, previous));
  const about = { scope: 'summary' as const, subjectId: subject };
  const outcome = await run.attempt(about, (summarizer, signal) => summarizer.summarizeRolling(input, signal));
  const since = selection[0].index;
  // The public summary's cursor moves over everything selected, the left-out secrets included.
  const through = selected[selected.length - 1].index;
  if (!outcome.ok) return { event: run.skipped(about, outcome, since, through), data: null, sharing };
  run.cursors.set(`summary:${subject}`, through);
  const data: RollingSummaryUpdatedData = {
    summary: capSentences(outcome.text, maxWords),
    viewer,
    ...(target.publicView ? { publicView: true } : {}),
    sinceMessageIndex: since,
    throughMessageIndex: through,
    triggerVersion: run.event.version,
    createdAt: run.event.recordedAt,
    inputIndexes: selection.map((m) => m.index),
    attempts: outcome.attempts,
    inputTokens: outcome.inputTokens,
    outputTokens: outcome.outputTokens,
  };
  return { event: { type: 'RollingSummaryUpdated', data }, data, sharing };
}

/** The public summary stands where the dm's does, on the same text: the dm's next one can serve both. */
async function publicInStep(
  run: TriggerRun,
  dmCursor: number,
  dmPrevious: RollingSummaryView | null,
): Promise<boolean> {
  if ((run.cursors.get(`summary:${PUBLIC_SUMMARY_SUBJECT}`) ?? -1) !== dmCursor) return false;
  const publicPrevious = await run.reads.latestSummary(PUBLIC_SUMMARY_KEY);
  return (publicPrevious?.summary ?? null) === (dmPrevious?.summary ?? null);
}
