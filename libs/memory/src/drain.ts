import { CampaignReader, CampaignState, GameEvent, StoredMessage } from '@app/campaign';
import { Database } from '@app/database';
import { EventStore, gameStream, memoryStream, NewEvent, StoredEvent } from '@app/event-store';
import {
  LedgerEntry,
  ledgerEntry,
  ModelCall,
  summarizeWithRetry,
  Summarizer,
  SummaryOutcome,
  SummaryResult,
} from '@app/summarizer';
import { EntityManager } from 'typeorm';
import { KnownTerms, knownTermsOf } from './glossary/known-terms';
import { LayersReader } from './layers.reader';
import { MemoryEvent } from './memory-events';
import { MemoryProjector } from './memory.projector';
import { CheckpointMove, CheckpointStore } from './checkpoint/checkpoint.store';
import { CampaignLease, CampaignOwnership, LeaseLostError } from './ownership/campaign-ownership.port';
import { WorkerProgress } from './progress';
import { CallAbout, planTasks, ScopeTask, Trigger, TriggerOptions, TriggerReads, TriggerRun } from './triggers';
import { abandonedEntries, CallGroup, committedEntries, UsageSink, writtenIds } from './usage-calls';
import { WorkerSql } from './worker-sql';

export interface WorkerOptions {
  attempts: number;
  timeoutMs: number;
  concurrency: number;
  /** Game events read per batch while catching up. */
  batchSize?: number;
  /** Observes each committed outcome (metrics). */
  onOutcome?: (outcome: 'recorded' | 'skipped', scope: string) => void;
  /** §12 usage ledger: every model call, written in the transaction of the outcome it produced. */
  usage?: UsageSink;
  /** Writes each paid call ahead of its outcome, so a crash cannot lose it (remote models; the local one is free). */
  writeAhead?: boolean;
  /** Observes the ledger rows once they are durable (metrics). */
  onCalls?: (entries: LedgerEntry[]) => void;
  /** §8 "Previously": rewritten at each RoundEnded of a multiple of this (SUMMARY_INTERVAL_ROUNDS, 4). */
  summaryIntervalRounds?: number;
  /** §8: rounds kept verbatim in Recent Messages (HOT_ROUNDS, 4); only older ones are summarized. */
  hotRounds?: number;
  /** §8: the longest "Previously" (ROLLING_SUMMARY_WORDS, 150). */
  rollingSummaryWords?: number;
}

export interface WorkerLogger {
  log(message: string, context?: Record<string, unknown>): void;
  warn(message: string, context?: Record<string, unknown>): void;
  error(message: string, context?: Record<string, unknown>): void;
}

/** What a drain works with: the stores it reads and writes, the model, and who may commit. */
export interface DrainDeps {
  db: Database;
  store: EventStore;
  reader: CampaignReader;
  projector: MemoryProjector;
  summarizer: Summarizer;
  progress: WorkerProgress;
  logger: WorkerLogger;
  options: WorkerOptions;
  ownership: CampaignOwnership;
}

/** Thrown to abandon a trigger (shutdown): nothing of it is committed. */
class Abandoned extends Error {}

/** A fence lost to another worker: stop, commit nothing. */
class CheckpointMoved extends Error {}

/** A trigger's outcome events and the model calls behind them. */
interface Outcomes {
  events: NewEvent[];
  calls: CallGroup[];
}

/** One claim's progress through its batch: where the checkpoint stands, and what it read once and keeps current. */
interface Pass {
  lease: CampaignLease;
  /** §10: the checkpoint's timeline at the claim's start; a rewind since then fences every commit of this claim. */
  timeline: number;
  state: CampaignState;
  processed: number;
  /** Only this claim's commits move the memory stream, so its version is known without reading it again. */
  memoryVersion: number;
  /** The last event that triggered nothing since the last move: the checkpoint moves over it with the next commit. */
  plain: number | null;
  /** Nobody else moves this campaign's cursors while we hold it: read once, kept current as outcomes commit. */
  cursors: Map<string, number> | null;
  known: KnownTerms | null;
}

type Planned = { trigger: Trigger; task: ScopeTask }[];

/**
 * One claim's work on a campaign (DESIGN §1–2): read the next game events after the checkpoint, run the triggers
 * each fires, and commit their outcomes with the checkpoint in one transaction, fenced on the claim.
 */
export class CampaignDrain {
  private readonly layers: LayersReader;
  private readonly sql: WorkerSql;
  private readonly checkpoints: CheckpointStore;
  private readonly triggerOptions: TriggerOptions;

  /** `stop` aborts when the worker stops: in-flight summaries are abandoned and nothing of them commits. */
  constructor(
    private readonly deps: DrainDeps,
    private readonly stop: AbortSignal,
  ) {
    this.layers = new LayersReader(deps.db, deps.reader);
    this.sql = new WorkerSql(deps.db);
    this.checkpoints = new CheckpointStore(deps.db);
    const o = deps.options;
    this.triggerOptions = {
      summaryIntervalRounds: o.summaryIntervalRounds ?? 4,
      hotRounds: o.hotRounds ?? 4,
      rollingSummaryWords: o.rollingSummaryWords ?? 150,
    };
  }

  /** Drains one batch; true when the campaign is still behind (one batch per claim, then back of the queue). */
  async drain(campaignId: string, lease: CampaignLease): Promise<boolean> {
    if (this.halted(lease)) return false;
    const checkpoint = await this.checkpoints.get(campaignId);
    const snap = await this.deps.reader.find(campaignId);
    if (!snap || checkpoint.processedVersion >= snap.state.version) return false;
    const { processedVersion: processed, memoryVersion, timeline } = checkpoint;
    const { state } = snap;
    // Only events the snapshot's state already knows (an NPC registered just now must not be missing from it).
    const limit = this.deps.options.batchSize ?? 200;
    const events = await this.deps.store.readStream(gameStream(campaignId), {
      after: processed,
      until: state.version,
      limit,
    });
    // Calls a crashed owner wrote ahead and never settled: their outcome will never commit.
    if (this.deps.options.writeAhead) await this.deps.options.usage?.sweep(campaignId);
    const pass: Pass = { lease, timeline, state, processed, memoryVersion, plain: null, cursors: null, known: null };
    try {
      for (const event of events) {
        if (this.halted(lease)) return false;
        await this.handle(pass, event);
      }
      if (pass.plain !== null) pass.processed = await this.advance(pass, pass.processed, pass.plain);
    } catch (err) {
      if (err instanceof Abandoned || err instanceof CheckpointMoved || err instanceof LeaseLostError) return false;
      throw err;
    }
    // Only this claim moves the checkpoint, so `processed` is where it stands.
    const heads = await this.deps.reader.heads(campaignId);
    return !!heads && pass.processed < heads.game;
  }

  private halted(lease: CampaignLease): boolean {
    return this.stop.aborted || lease.signal.aborted;
  }

  /** One game event: its outcomes commit with the checkpoint; one with none is passed over with the next commit. */
  private async handle(pass: Pass, event: StoredEvent): Promise<void> {
    // The game stream holds only the domain's events.
    const planned = planTasks({ type: event.type, data: event.data } as GameEvent, this.triggerOptions);
    if (planned.length > 0) {
      pass.cursors ??= await this.sql.cursors(pass.lease.campaignId);
      const outcomes = await this.outcomesOf(pass, event, planned);
      if (outcomes.events.length > 0) {
        if (pass.plain !== null) pass.processed = await this.advance(pass, pass.processed, pass.plain);
        pass.plain = null;
        const move = {
          from: pass.processed,
          to: event.version,
          memoryVersion: pass.memoryVersion,
          timeline: pass.timeline,
        };
        pass.memoryVersion = await this.commit(pass.lease, event, outcomes, move);
        pass.processed = event.version;
        return;
      }
    }
    pass.plain = event.version;
  }

  /** Moves the checkpoint over events that trigger nothing. */
  private async advance(pass: Pass, from: number, to: number): Promise<number> {
    const { lease, timeline } = pass;
    await this.deps.db.transaction((m) => this.moveCheckpoint(m, lease, { from, to, timeline }));
    this.deps.progress.processed(lease.campaignId, to, timeline);
    return to;
  }

  /**
   * The last statement of a worker transaction: the checkpoint moves only from where this claim left it, and only
   * while the claim holds.
   */
  private async moveCheckpoint(m: EntityManager, lease: CampaignLease, move: CheckpointMove): Promise<void> {
    // Fence first: on PostgreSQL it keeps the lease row locked until commit, so no takeover slips in before the move.
    await this.deps.ownership.fence(m, lease);
    if (!(await CheckpointStore.move(m, lease.campaignId, move))) throw new CheckpointMoved();
  }

  /** Runs an event's tasks outside any transaction, with the model calls made; no events when none summarized. */
  private async outcomesOf(pass: Pass, event: StoredEvent, planned: Planned): Promise<Outcomes> {
    const { lease } = pass;
    const meta = { correlationId: event.metadata.correlationId, causationId: `${event.streamId}@${event.version}` };
    const calls: CallGroup[] = [];
    const run = this.runOf(pass, event, calls);
    const events: NewEvent[] = [];
    try {
      for (const { trigger, task } of planned) {
        for (const outcome of await trigger.run(task, run))
          events.push({ ...outcome, metadata: meta, triggerVersion: event.version });
      }
      if (this.halted(lease)) throw new Abandoned();
    } catch (err) {
      await this.abandonCalls(lease.campaignId, event, calls);
      throw err;
    }
    return { events, calls };
  }

  /** The event as its triggers see it: reads bound to the campaign and to before the event, calls kept in `calls`. */
  private runOf(pass: Pass, event: StoredEvent, calls: CallGroup[]): TriggerRun {
    const { campaignId } = pass.lease;
    const signal = AbortSignal.any([this.stop, pass.lease.signal]);
    return {
      campaignId,
      event,
      state: pass.state,
      cursors: pass.cursors!,
      options: this.triggerOptions,
      reads: this.readsOf(pass, event.version),
      attempt: (about, call) => this.attempt({ campaignId, event, signal, calls }, about, call),
      skipped: (about, outcome, since, through) => this.skipped(campaignId, about, outcome, event, since, through),
      log: (message, context) => this.deps.logger.log(message, context),
    };
  }

  private readsOf(pass: Pass, beforeVersion: number): TriggerReads {
    const { campaignId } = pass.lease;
    return {
      messages: (o) => this.deps.reader.messagesForScope(campaignId, { ...o, beforeVersion }),
      witnessed: (witness, selection) => this.witnessedOnly(campaignId, witness, selection),
      latestSummary: (key) => this.layers.latestSummary(campaignId, key),
      knownTerms: async () => (pass.known ??= knownTermsOf(pass.state, await this.layers.termKeys(campaignId))),
    };
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

  /** §12: calls whose outcome will never commit are still spent; recorded as abandoned, never lost to the ledger. */
  private async abandonCalls(campaignId: string, event: StoredEvent, calls: CallGroup[]): Promise<void> {
    const { usage, onCalls } = this.deps.options;
    if (!usage || calls.every((g) => g.calls.length === 0)) return;
    const entries = abandonedEntries(campaignId, event, calls, this.modelName());
    try {
      await usage.abandon(entries, writtenIds(calls));
      onCalls?.(abandonedEntries(campaignId, event, calls, this.modelName(), false));
    } catch (err) {
      const context = { campaignId, triggerVersion: event.version };
      this.deps.logger.warn(`abandoned model calls not recorded: ${(err as Error).message}`, context);
    }
  }

  private async writeAhead(handling: Handling, group: CallGroup, call: ModelCall): Promise<void> {
    const { campaignId, event } = handling;
    const model = this.modelName();
    const at = { campaignId, scope: group.scope, subjectId: group.subjectId, triggerVersion: event.version, model };
    try {
      group.written.set(call, await this.deps.options.usage!.pending(ledgerEntry(call, at, 'pending')));
    } catch (err) {
      // The call still reaches the ledger with its outcome; only the crash window stays open for it.
      const context = { campaignId, triggerVersion: event.version };
      this.deps.logger.warn(`model call not written ahead: ${(err as Error).message}`, context);
    }
  }

  private modelName(): string {
    return this.deps.summarizer.model ?? this.deps.summarizer.name;
  }

  /**
   * ONE transaction: the outcomes on the memory stream, their projections, the checkpoint — fenced on the lease.
   * The new memory version.
   */
  private async commit(lease: CampaignLease, event: StoredEvent, outcomes: Outcomes, move: Required<CheckpointMove>) {
    const { campaignId } = lease;
    const { db, store, projector, options, progress } = this.deps;
    const { events, calls } = outcomes;
    const memoryVersion = move.memoryVersion + events.length;
    let entries: LedgerEntry[] = [];
    try {
      await db.transaction(async (m) => {
        // §10 fence, before anything is appended: a claim from before a rewind (or on a deleted campaign) commits
        // nothing; the checkpoint move below would refuse it too, but only after its events reached the stream.
        const head = await this.deps.reader.lockForAppend(m, campaignId);
        if (!head || head.timeline !== move.timeline) throw new CheckpointMoved();
        const appended = await store.append(memoryStream(campaignId), move.memoryVersion, events, event.recordedAt, m);
        await projector.apply(m, campaignId, appended, { memoryVersion: false });
        entries = options.usage ? committedEntries(campaignId, event, appended, calls, this.modelName()) : [];
        if (entries.length) await options.usage!.settle(m, writtenIds(calls), entries);
        // Last, so the lease row stays locked only for the commit itself.
        await this.moveCheckpoint(m, lease, { ...move, memoryVersion });
      });
    } catch (err) {
      await this.abandonCalls(campaignId, event, calls);
      throw err;
    }
    progress.processed(campaignId, event.version, move.timeline);
    for (const o of events) options.onOutcome?.(...outcomeOf(o));
    if (entries.length) options.onCalls?.(entries);
    return memoryVersion;
  }

  /** Runs one model call under the retry policy, its attempts kept for the ledger; a shutdown abandons the trigger. */
  private async attempt(
    handling: Handling,
    about: CallAbout,
    call: (summarizer: Summarizer, signal: AbortSignal) => Promise<SummaryResult>,
  ): Promise<SummaryOutcome> {
    const group: CallGroup = { ...about, calls: [], written: new Map() };
    handling.calls.push(group);
    const { attempts, timeoutMs, writeAhead, usage } = this.deps.options;
    const onCall = writeAhead && usage ? (c: ModelCall) => this.writeAhead(handling, group, c) : undefined;
    const summarizer = this.deps.summarizer;
    const retry = { attempts, timeoutMs, signal: handling.signal, onCall };
    const outcome = await summarizeWithRetry((signal) => call(summarizer, signal), retry);
    group.calls = outcome.calls;
    if (!outcome.ok && outcome.reason === 'aborted') throw new Abandoned();
    return outcome;
  }

  private skipped(
    campaignId: string,
    about: CallAbout,
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

/** The trigger event being handled: its campaign, the signal that abandons it, the model calls made so far. */
interface Handling {
  campaignId: string;
  event: StoredEvent;
  /** Shutdown or a lost lease. */
  signal: AbortSignal;
  /** One group per summary. */
  calls: CallGroup[];
}

/** Metrics label of a committed outcome: glossary terms and summaries count as recorded in their own scope. */
function outcomeOf(o: NewEvent): ['recorded' | 'skipped', string] {
  if (o.type === 'GlossaryTermAdded') return ['recorded', 'glossary'];
  if (o.type === 'RollingSummaryUpdated') return ['recorded', 'summary'];
  return [o.type === 'MemorySkipped' ? 'skipped' : 'recorded', (o.data as { scope: string }).scope];
}
