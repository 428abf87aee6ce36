import {
  CampaignReader,
  CampaignState,
  emptyState,
  evolve,
  GameEvent,
  retractedAmong,
  StoredMessage,
} from '@app/campaign';
import { DomainError, giveBack } from '@app/common';
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
import { RequestTerms } from './glossary/request-terms';
import { LayersReader } from './layers.reader';
import { MemoryEvent } from './memory-events';
import { MemoryProjector } from './memory.projector';
import { CheckpointMove, CheckpointStore } from './checkpoint/checkpoint.store';
import { CampaignLease, CampaignOwnership, LeaseLostError } from './ownership/campaign-ownership.port';
import { WorkerProgress } from './progress';
import {
  CallAbout,
  DEFAULT_TRIGGER_OPTIONS,
  planTasks,
  SceneAbout,
  ScopeTask,
  Trigger,
  TriggerOptions,
  TriggerReads,
  TriggerRun,
} from './triggers';
import { abandonedEntries, CallGroup, committedEntries, UsageSink, writtenIds } from './usage-calls';
import { WorkerSql } from './worker-sql';

export interface WorkerOptions {
  attempts: number;
  timeoutMs: number;
  concurrency: number;
  /** Least ms between two drains of one campaign (DRAIN_GAP_MS, memory.worker.ts). */
  drainGapMs?: number;
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
  /** §13 MAX_NEW_TERMS_PER_REQUEST (20) and MAX_GLOSSARY_TERMS (2,000). */
  maxNewTermsPerRequest?: number;
  maxGlossaryTerms?: number;
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
  /** The state right after the event being handled: the checkpoint's state folded forward over the batch. */
  state: CampaignState;
  processed: number;
  /** Only this claim's commits move the memory stream, so its version is known without reading it again. */
  memoryVersion: number;
  /** The last event that triggered nothing since the last move: the checkpoint moves over it with the next commit. */
  plain: number | null;
  /** Nobody else moves this campaign's cursors while we hold it: read once, kept current as outcomes commit. */
  cursors: Map<string, number> | null;
  known: KnownTerms | null;
  /** Shutdown or the lease lost: made once per pass (AbortSignal.any per event was ≈ 4 % of a batch write's CPU). */
  signal?: AbortSignal;
}

type Planned = { trigger: Trigger; task: ScopeTask }[];

/** Work the drain does between two turns of the event loop, ms. */
const SLICE_MS = 10;

/** Campaigns whose last pass's end state is kept: a caught-up worker folds on from it instead of loading. */
const ENDED_STATES = 256;

/**
 * One claim's work on a campaign (DESIGN §1–2): read the next game events after the checkpoint, run the triggers
 * each fires, and commit their outcomes with the checkpoint in one transaction, fenced on the claim.
 */
export class CampaignDrain {
  private readonly layers: LayersReader;
  private readonly sql: WorkerSql;
  private readonly checkpoints: CheckpointStore;
  private readonly triggerOptions: TriggerOptions;
  /** The state each campaign's last pass ended at, with its timeline (a rewind reuses version numbers). */
  private readonly ended = new Map<string, { timeline: number; state: CampaignState }>();
  /** §13: terms coined per request, kept across passes. */
  private readonly requestTerms = new RequestTerms();

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
      maxNewTermsPerRequest: o.maxNewTermsPerRequest ?? DEFAULT_TRIGGER_OPTIONS.maxNewTermsPerRequest,
      maxGlossaryTerms: o.maxGlossaryTerms ?? DEFAULT_TRIGGER_OPTIONS.maxGlossaryTerms,
    };
  }

  /** Drains one batch; true when the campaign is still behind (one batch per claim, then back of the queue). */
  async drain(campaignId: string, lease: CampaignLease): Promise<boolean> {
    if (this.halted(lease)) return false;
    const checkpoint = await this.checkpoints.get(campaignId);
    const heads = await this.deps.reader.heads(campaignId);
    if (!heads || checkpoint.processedVersion >= heads.game) return false;
    const { processedVersion: processed, memoryVersion, timeline } = checkpoint;
    const limit = this.deps.options.batchSize ?? 200;
    const events = await this.deps.store.readStream(gameStream(campaignId), { after: processed, limit });
    // §10: each trigger sees the state right after its own event, never the head's: outcomes do not depend on lag.
    const state = await this.startState(campaignId, timeline, processed).catch((err: unknown) => {
      if (err instanceof CheckpointMoved) return null;
      throw err;
    });
    if (!state) return false;
    // Calls a crashed owner wrote ahead and never settled: their outcome will never commit.
    if (this.deps.options.writeAhead) await this.deps.options.usage?.sweep(campaignId);
    const pass: Pass = { lease, timeline, state, processed, memoryVersion, plain: null, cursors: null, known: null };
    try {
      let slice = performance.now();
      for (const event of events) {
        if (this.halted(lease)) return false;
        // §13: over SQLite a batch never waits for I/O; the loop is given back every SLICE_MS of work (a 500-message
        // post's batch of coining and planning held it 50–100 ms after the post was answered).
        if (performance.now() - slice > SLICE_MS) {
          await giveBack();
          slice = performance.now();
        }
        await this.handle(pass, event);
      }
      if (pass.plain !== null) pass.processed = await this.advance(pass, pass.processed, pass.plain);
    } catch (err) {
      if (err instanceof Abandoned || err instanceof CheckpointMoved || err instanceof LeaseLostError) return false;
      throw err;
    } finally {
      this.keepEnded(campaignId, timeline, pass.state);
    }
    // Only this claim moves the checkpoint, so `processed` is where it stands.
    const after = await this.deps.reader.heads(campaignId);
    return !!after && pass.processed < after.game;
  }

  /** The state at the checkpoint: where the last pass ended when it ended there, else folded from the stream. */
  private async startState(campaignId: string, timeline: number, version: number): Promise<CampaignState> {
    const ended = this.ended.get(campaignId);
    if (ended && ended.timeline === timeline && ended.state.version === version) return ended.state;
    return this.stateAt(campaignId, version);
  }

  private keepEnded(campaignId: string, timeline: number, state: CampaignState): void {
    this.ended.delete(campaignId);
    this.ended.set(campaignId, { timeline, state });
    if (this.ended.size > ENDED_STATES) this.ended.delete(this.ended.keys().next().value!);
  }

  /** The campaign state right after game event `version` (versioned state rows: no replay, docs/state.md). */
  private async stateAt(campaignId: string, version: number): Promise<CampaignState> {
    if (version === 0) return emptyState(campaignId);
    try {
      return await this.deps.reader.stateAt(campaignId, version);
    } catch (err) {
      // Deleted, or rewound below the checkpoint since it was read: this claim has nothing left to do.
      if (err instanceof DomainError) throw new CheckpointMoved();
      throw err;
    }
  }

  private halted(lease: CampaignLease): boolean {
    return this.stop.aborted || lease.signal.aborted;
  }

  /** One game event: its outcomes commit with the checkpoint; one with none is passed over with the next commit. */
  private async handle(pass: Pass, event: StoredEvent): Promise<void> {
    const before = pass.state;
    pass.state = folded(before, event);
    if (namesChanged(before, pass.state)) pass.known = null;
    // The game stream holds only the domain's events.
    const planned = planTasks({ type: event.type, data: event.data } as GameEvent, this.triggerOptions);
    if (planned.length > 0) {
      pass.cursors ??= await this.sql.cursors(pass.lease.campaignId);
      const outcomes = await this.outcomesOf(pass, event, planned);
      if (outcomes.events.length > 0) {
        if (pass.plain !== null) pass.processed = await this.advance(pass, pass.processed, pass.plain);
        pass.plain = null;
        // The memory stream is ordered by trigger version (§10: fork and rewind keep or cut a prefix of it).
        if (event.version <= pass.processed) throw new Error(`trigger ${event.version} is not after ${pass.processed}`);
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
    const signal = (pass.signal ??= AbortSignal.any([this.stop, pass.lease.signal]));
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
      stateAt: (version) => (version === state.version ? Promise.resolve(state) : this.stateAt(campaignId, version)),
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

/** The trigger event being handled: its campaign, the signal that abandons it, the model calls made so far. */
interface Handling {
  campaignId: string;
  event: StoredEvent;
  /** Shutdown or a lost lease. */
  signal: AbortSignal;
  /** One group per summary. */
  calls: CallGroup[];
}

/** The state right after `e` (the game stream holds only the domain's events). */
function folded(state: CampaignState, e: StoredEvent): CampaignState {
  return { ...evolve(state, { type: e.type, data: e.data } as GameEvent, e.recordedAt, e.version), version: e.version };
}

/** Whether an event changed a name the glossary must not coin (evolve replaces only the parts it changes). */
function namesChanged(a: CampaignState, b: CampaignState): boolean {
  return (
    a.locations !== b.locations ||
    a.npcs !== b.npcs ||
    a.players !== b.players ||
    a.glossary !== b.glossary ||
    a.bible !== b.bible
  );
}

/** Metrics label of a committed outcome: glossary terms and summaries count as recorded in their own scope. */
function outcomeOf(o: NewEvent): ['recorded' | 'skipped', string] {
  if (o.type === 'GlossaryTermAdded') return ['recorded', 'glossary'];
  if (o.type === 'RollingSummaryUpdated') return ['recorded', 'summary'];
  if (o.type === 'MemoryRevised' || o.type === 'MemoryWithdrawn' || o.type === 'GlossaryTermWithdrawn')
    return ['recorded', 'revision'];
  return [o.type === 'MemorySkipped' ? 'skipped' : 'recorded', (o.data as { scope: string }).scope];
}
