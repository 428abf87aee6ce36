import { retractedAmong, StoredMessage } from '@app/campaign';
import { gameStream, NewEvent, StoredEvent } from '@app/event-store';
import { summarizeWithRetry, Summarizer, SummaryOutcome, SummaryResult } from '@app/summarizer';
import { Abandoned, Pass, PassStates } from './drain-pass';
import { knownTermsOf } from './glossary/known-terms';
import { RequestTerms } from './glossary/request-terms';
import { LayersReader } from './layers.reader';
import { MemoryEvent } from './memory-events';
import { CallAbout, SceneAbout, ScopeTask, Trigger, TriggerOptions, TriggerReads, TriggerRun } from './triggers';
import { EventCalls } from './usage-observer';
import { DrainDeps } from './worker-options';
import { WorkerSql } from './worker-sql';

export type Planned = { trigger: Trigger; task: ScopeTask }[];

/** A trigger event's outcome events, and its model calls as the usage ledger observes them. */
export interface Outcomes {
  events: NewEvent[];
  calls: EventCalls;
}

/** The trigger event being handled: its campaign, the signal that abandons it, the ledger's view of its calls. */
interface Handling {
  campaignId: string;
  event: StoredEvent;
  /** Shutdown or a lost lease. */
  signal: AbortSignal;
  calls: EventCalls;
}

/**
 * Runs the triggers a game event fires (DESIGN §2, §8), outside any transaction: what they may read (bound to the
 * campaign and to before the event), their model calls under the retry policy, their skipped summaries.
 */
export class TriggerRunner {
  private readonly layers: LayersReader;
  private readonly sql: WorkerSql;
  /** §13: terms coined per request, kept across passes. */
  private readonly requestTerms = new RequestTerms();

  constructor(
    private readonly deps: DrainDeps,
    private readonly states: PassStates,
    private readonly options: TriggerOptions,
    /** Aborts when the worker stops: in-flight summaries are abandoned and nothing of them commits. */
    private readonly stop: AbortSignal,
  ) {
    this.layers = new LayersReader(deps.db, deps.reader);
    this.sql = new WorkerSql(deps.db);
  }

  /** The event's outcome events with the calls made; no events when none summarized. */
  async outcomesOf(pass: Pass, event: StoredEvent, planned: Planned): Promise<Outcomes> {
    const { lease } = pass;
    pass.cursors ??= await this.sql.cursors(lease.campaignId);
    const meta = { correlationId: event.metadata.correlationId, causationId: `${event.streamId}@${event.version}` };
    const calls = this.deps.calls.handling(lease.campaignId, event);
    const run = this.runOf(pass, event, calls);
    const events: NewEvent[] = [];
    try {
      for (const { trigger, task } of planned) {
        for (const outcome of await trigger.run(task, run))
          events.push({ ...outcome, metadata: meta, triggerVersion: event.version });
      }
      if (this.stop.aborted || lease.signal.aborted) throw new Abandoned();
    } catch (err) {
      await calls.abandoned();
      throw err;
    }
    return { events, calls };
  }

  /** The event as its triggers see it: reads bound to the campaign and to before the event. */
  private runOf(pass: Pass, event: StoredEvent, calls: EventCalls): TriggerRun {
    const { campaignId } = pass.lease;
    const signal = (pass.signal ??= AbortSignal.any([this.stop, pass.lease.signal]));
    return {
      campaignId,
      event,
      state: pass.state,
      cursors: pass.cursors!,
      options: this.options,
      reads: this.readsOf(pass, event.version),
      attempt: (about, call) => this.attempt({ campaignId, event, signal, calls }, about, call),
      skipped: (about, outcome, since, through) => this.skipped(campaignId, about, outcome, event, since, through),
      log: (message, context) => this.deps.logger.log(message, context),
      requestTerms: this.requestTerms.of(campaignId, event),
    };
  }

  private readsOf(pass: Pass, beforeVersion: number): TriggerReads {
    const { campaignId } = pass.lease;
    const state = pass.state;
    return {
      messages: (o) => this.deps.reader.messagesForScope(campaignId, { ...o, beforeVersion }),
      witnessed: (witness, selection) => this.witnessedOnly(campaignId, witness, selection),
      latestSummary: (key) => this.layers.latestSummary(campaignId, key),
      knownTerms: async () => (pass.known ??= knownTermsOf(pass.state, await this.layers.termKeys(campaignId))),
      // §10: what was withheld and retracted as of this event (its own retraction included), never later.
      withheld: () => this.sql.withheld(campaignId, beforeVersion),
      messagesByIndex: (indexes) => this.surviving(campaignId, indexes, beforeVersion),
      event: async (version) =>
        (
          await this.deps.store.readStream(gameStream(campaignId), { after: version - 1, until: version, limit: 1 })
        )[0] ?? null,
      stateAt: (version) => (version === state.version ? Promise.resolve(state) : this.states.at(campaignId, version)),
    };
  }

  /** The messages of `indexes` not retracted as of `version`, oldest first. */
  private async surviving(campaignId: string, indexes: number[], version: number): Promise<StoredMessage[]> {
    const retracted = await this.deps.db.read((m) => retractedAmong(m, campaignId, indexes, version));
    const left = [...new Set(indexes)].filter((i) => !retracted.has(i));
    return this.deps.reader.messagesByIndex(campaignId, left);
  }

  /** The messages of `selection` the witness saw (§8 witnessing, the speaker rule included). */
  private async witnessedOnly(
    campaignId: string,
    witness: string,
    selection: StoredMessage[],
  ): Promise<StoredMessage[]> {
    if (selection.length === 0) return selection;
    const seen = new Set<number>();
    // Chunked: a long stay at one location selects more messages than a statement may bind.
    for (let i = 0; i < selection.length; i += 500) {
      const chunk = selection.slice(i, i + 500).map((m) => m.index);
      for (const idx of await this.deps.reader.witnessed(campaignId, witness, chunk)) seen.add(idx);
    }
    return selection.filter((m) => seen.has(m.index));
  }

  /** Runs one model call under the retry policy, its attempts seen by the ledger; a shutdown abandons the trigger. */
  private async attempt(
    handling: Handling,
    about: CallAbout,
    call: (summarizer: Summarizer, signal: AbortSignal) => Promise<SummaryResult>,
  ): Promise<SummaryOutcome> {
    const summary = handling.calls.summary(about);
    const { attempts, timeoutMs } = this.deps.options;
    const summarizer = this.deps.summarizer;
    const retry = { attempts, timeoutMs, signal: handling.signal, onCall: summary.onCall };
    const outcome = await summarizeWithRetry((signal) => call(summarizer, signal), retry);
    summary.spent(outcome.calls);
    if (!outcome.ok && outcome.reason === 'aborted') throw new Abandoned();
    return outcome;
  }

  private skipped(
    campaignId: string,
    about: SceneAbout,
    outcome: SummaryOutcome & { ok: false },
    event: StoredEvent,
    since: number,
    through: number,
  ): MemoryEvent {
    this.deps.logger.warn(
      `summary failed after ${outcome.attempts} attempts; skipped, cursor kept: ${outcome.reason}`,
      {
        campaignId,
        triggerVersion: event.version,
        scope: about.scope,
        subjectId: about.subjectId,
        correlationId: event.metadata.correlationId,
      },
    );
    const { attempts, reason } = outcome;
    const range = { sinceMessageIndex: since, throughMessageIndex: through };
    return { type: 'MemorySkipped', data: { ...about, reason, attempts, triggerVersion: event.version, ...range } };
  }
}
