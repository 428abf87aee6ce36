import { GameEvent } from '@app/campaign';
import { giveBack } from '@app/common';
import { gameStream, memoryStream, NewEvent, StoredEvent } from '@app/event-store';
import { EntityManager } from 'typeorm';
import { CheckpointMove, CheckpointStore } from './checkpoint/checkpoint.store';
import { Abandoned, CheckpointMoved, folded, namesChanged, Pass, PassStates } from './drain-pass';
import { CampaignLease, LeaseLostError } from './ownership/campaign-ownership.port';
import { Outcomes, TriggerRunner } from './trigger-runner';
import { DEFAULT_TRIGGER_OPTIONS, planTasks, TriggerOptions } from './triggers';
import { DrainDeps, WorkerOptions } from './worker-options';

export type { DrainDeps } from './worker-options';

/** Work the drain does between two turns of the event loop, ms. */
const SLICE_MS = 10;

/**
 * One claim's work on a campaign (DESIGN §1–2): read the next game events after the checkpoint, run the triggers
 * each fires (trigger-runner.ts), and commit their outcomes with the checkpoint in one transaction, fenced on the
 * claim. The model calls behind an outcome are the usage ledger's business: it observes them (usage-observer.ts).
 */
export class CampaignDrain {
  private readonly checkpoints: CheckpointStore;
  private readonly triggerOptions: TriggerOptions;
  private readonly states: PassStates;
  private readonly triggers: TriggerRunner;

  /** `stop` aborts when the worker stops: in-flight summaries are abandoned and nothing of them commits. */
  constructor(
    private readonly deps: DrainDeps,
    private readonly stop: AbortSignal,
  ) {
    this.checkpoints = new CheckpointStore(deps.db);
    this.triggerOptions = triggerOptionsOf(deps.options);
    this.states = new PassStates(deps.reader);
    this.triggers = new TriggerRunner(deps, this.states, this.triggerOptions, stop);
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
    const state = await this.states.start(campaignId, timeline, processed).catch((err: unknown) => {
      if (err instanceof CheckpointMoved) return null;
      throw err;
    });
    if (!state) return false;
    await this.deps.calls.claimed(campaignId);
    const pass: Pass = { lease, timeline, state, processed, memoryVersion, plain: null, cursors: null, known: null };
    try {
      if (!(await this.handleAll(pass, events))) return false;
    } catch (err) {
      if (err instanceof Abandoned || err instanceof CheckpointMoved || err instanceof LeaseLostError) return false;
      throw err;
    } finally {
      this.states.keepEnded(campaignId, timeline, pass.state);
    }
    // Only this claim moves the checkpoint, so `processed` is where it stands.
    const after = await this.deps.reader.heads(campaignId);
    return !!after && pass.processed < after.game;
  }

  /** The batch in order; false when halted midway. */
  private async handleAll(pass: Pass, events: StoredEvent[]): Promise<boolean> {
    let slice = performance.now();
    for (const event of events) {
      if (this.halted(pass.lease)) return false;
      // §13: over SQLite a batch never waits for I/O; the loop is given back every SLICE_MS of work (a 500-message
      // post's batch of coining and planning held it 50–100 ms after the post was answered).
      if (performance.now() - slice > SLICE_MS) {
        await giveBack();
        slice = performance.now();
      }
      await this.handle(pass, event);
    }
    if (pass.plain !== null) pass.processed = await this.advance(pass, pass.processed, pass.plain);
    return true;
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
      const outcomes = await this.triggers.outcomesOf(pass, event, planned);
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

  /**
   * ONE transaction: the outcomes on the memory stream, their projections, the ledger rows of the calls behind them,
   * the checkpoint — fenced on the lease. The new memory version.
   */
  private async commit(lease: CampaignLease, event: StoredEvent, outcomes: Outcomes, move: Required<CheckpointMove>) {
    const { campaignId } = lease;
    const { db, store, projector, options, progress } = this.deps;
    const { events, calls } = outcomes;
    const memoryVersion = move.memoryVersion + events.length;
    try {
      await db.transaction(async (m) => {
        // §10 fence, before anything is appended: a claim from before a rewind (or on a deleted campaign) commits
        // nothing; the checkpoint move below would refuse it too, but only after its events reached the stream.
        const head = await this.deps.reader.lockForAppend(m, campaignId);
        if (!head || head.timeline !== move.timeline) throw new CheckpointMoved();
        const appended = await store.append(memoryStream(campaignId), move.memoryVersion, events, event.recordedAt, m);
        await projector.apply(m, campaignId, appended, { memoryVersion: false });
        await calls.committing(m, appended);
        // Last, so the lease row stays locked only for the commit itself.
        await this.moveCheckpoint(m, lease, { ...move, memoryVersion });
      });
    } catch (err) {
      await calls.abandoned();
      throw err;
    }
    progress.processed(campaignId, event.version, move.timeline);
    for (const o of events) options.onOutcome?.(...outcomeOf(o));
    calls.committed();
    return memoryVersion;
  }
}

function triggerOptionsOf(o: WorkerOptions): TriggerOptions {
  return {
    summaryIntervalRounds: o.summaryIntervalRounds ?? 4,
    hotRounds: o.hotRounds ?? 4,
    rollingSummaryWords: o.rollingSummaryWords ?? 150,
    maxNewTermsPerRequest: o.maxNewTermsPerRequest ?? DEFAULT_TRIGGER_OPTIONS.maxNewTermsPerRequest,
    maxGlossaryTerms: o.maxGlossaryTerms ?? DEFAULT_TRIGGER_OPTIONS.maxGlossaryTerms,
  };
}

/** Metrics label of a committed outcome: glossary terms and summaries count as recorded in their own scope. */
function outcomeOf(o: NewEvent): ['recorded' | 'skipped', string] {
  if (o.type === 'GlossaryTermAdded') return ['recorded', 'glossary'];
  if (o.type === 'RollingSummaryUpdated') return ['recorded', 'summary'];
  if (o.type === 'MemoryRevised' || o.type === 'MemoryWithdrawn' || o.type === 'GlossaryTermWithdrawn')
    return ['recorded', 'revision'];
  return [o.type === 'MemorySkipped' ? 'skipped' : 'recorded', (o.data as { scope: string }).scope];
}
