import { CampaignReader, CampaignState, Message, roundAt, StoredMessage, viewerKey } from '@app/campaign';
import { EventStore, gameStream, memoryStream, NewEvent, StoredEvent } from '@app/event-store';
import { Database } from '@app/database';
import { capSentences, LedgerEntry, ledgerEntry, ModelCall, Summarizer, SummaryOutcome, SummaryResult } from '@app/summarizer';
import { summarizeWithRetry, TranscriptLine } from '@app/summarizer';
import { EntityManager } from 'typeorm';
import { extractCoinedTerms } from './glossary/coined-terms';
import { capDefinition, KnownTerms, knownTermsOf, MAX_TERM_CHARS, playerIdsOf } from './glossary/known-terms';
import { LayersReader, RollingSummaryView } from './layers.reader';
import { MemoryEvent, memoryId, RollingSummaryUpdatedData, summarySubject } from './memory-events';
import { PUBLIC_SUMMARY_KEY, PUBLIC_SUMMARY_SUBJECT } from './memory-events';
import { MemoryProjector } from './memory.projector';
import { npcWindow, planLayerTriggers, planTriggers, ScopeTask } from './message-selection';
import { WorkerProgress } from './progress';
import { CampaignLease, CampaignOwnership, LeaseLostError, SingleProcessOwnership } from './ownership/campaign-ownership.port';
import { CheckpointMove, CheckpointStore } from './checkpoint/checkpoint.store';
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
  /** Writes each paid call ahead of its outcome, so a crash cannot lose it (remote models; the local one costs nothing). */
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

/** Thrown to abandon a trigger (shutdown): nothing of it is committed. */
class Abandoned extends Error {}

/** A fence lost to another worker: stop, commit nothing. */
class CheckpointMoved extends Error {}

/**
 * Turns game events into memories (DESIGN §1–2). Driven by each campaign's durable checkpoint;
 * `wake` only says "look again". Per campaign strictly in order, across campaigns in parallel.
 */
export class MemoryWorker {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly running = new Set<string>();
  private readonly again = new Set<string>();
  private readonly active = new Set<Promise<void>>();
  private abort = new AbortController();
  private stopped = false;
  private readonly layers: LayersReader;
  private readonly sql: WorkerSql;
  private readonly checkpoints: CheckpointStore;

  constructor(
    private readonly db: Database,
    private readonly store: EventStore,
    private readonly reader: CampaignReader,
    private readonly projector: MemoryProjector,
    private readonly summarizer: Summarizer,
    private readonly progress: WorkerProgress,
    private readonly logger: WorkerLogger,
    private readonly options: WorkerOptions,
    /** One replica per campaign on PostgreSQL (§9); SQLite's single process owns everything. */
    private readonly ownership: CampaignOwnership = new SingleProcessOwnership(),
  ) {
    this.layers = new LayersReader(db);
    this.sql = new WorkerSql(db);
    this.checkpoints = new CheckpointStore(db);
  }

  /** Catch up every campaign whose checkpoint is behind (boot, or a poll). */
  async catchUp(): Promise<void> {
    for (const id of (await this.checkpoints.pending(await this.reader.versions())).keys()) this.wake(id);
  }

  /**
   * A poll's hint that the campaign is behind: ignored while it runs, since its drain re-reads the
   * campaign's version before letting go (a wake would only cost another claim, read and release).
   */
  nudge(campaignId: string): void {
    if (!this.running.has(campaignId)) this.wake(campaignId);
  }

  wake(campaignId: string): void {
    if (this.stopped) return;
    if (this.running.has(campaignId)) {
      this.again.add(campaignId);
      return;
    }
    if (this.queued.has(campaignId)) return;
    this.queued.add(campaignId);
    this.queue.push(campaignId);
    this.pump();
  }

  /** Resolves when no campaign is queued or running (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.active.size > 0 || this.queue.length > 0) await Promise.race([...this.active, new Promise((r) => setTimeout(r, 5))]);
  }

  /** False once stop() began (readiness). */
  isRunning(): boolean {
    return !this.stopped;
  }

  /** Abandons in-flight summaries without advancing anything and waits for the loops to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.length = 0;
    this.queued.clear();
    this.abort.abort();
    await Promise.allSettled([...this.active]);
  }

  private pump(): void {
    while (!this.stopped && this.active.size < this.options.concurrency && this.queue.length > 0) {
      const id = this.queue.shift()!;
      this.queued.delete(id);
      this.running.add(id);
      const run = this.own(id)
        .catch((err) => this.logger.error(`memory worker failed for campaign ${id}: ${(err as Error).message}`, { campaignId: id }))
        .finally(() => {
          this.running.delete(id);
          this.active.delete(run);
          if (this.again.delete(id)) this.wake(id);
          this.pump();
        });
      this.active.add(run);
    }
  }

  /** Claims the campaign, drains it, lets go; a campaign another replica holds is its business. */
  private async own(campaignId: string): Promise<void> {
    const lease = await this.ownership.acquire(campaignId);
    if (!lease) return;
    try {
      await this.drain(campaignId, lease);
    } finally {
      await this.ownership.release(lease);
    }
  }

  private async drain(campaignId: string, lease: CampaignLease): Promise<void> {
    if (this.stopped || lease.signal.aborted) return;
    const checkpoint = await this.checkpoints.get(campaignId);
    const snap = await this.reader.find(campaignId);
    if (!snap || checkpoint.processedVersion >= snap.state.version) return;
    const batch = this.options.batchSize ?? 200;
    let processed = checkpoint.processedVersion;
    // Only this claim's commits move the memory stream, so its version is known without reading it again.
    let memoryVersion = checkpoint.memoryVersion;
    // Only events the snapshot's state already knows (an NPC registered just now must not be missing from it).
    const events = await this.store.readStream(gameStream(campaignId), { after: processed, until: snap.state.version, limit: batch });
    // Calls a crashed owner wrote ahead and never settled: their outcome will never commit.
    if (this.options.writeAhead) await this.options.usage?.sweep(campaignId);
    // Nobody else moves this campaign's cursors while we hold it: read once, kept current as outcomes commit.
    let cursors: Map<string, number> | null = null;
    let plain: number | null = null;
    let known: KnownTerms | null = null;
    try {
      for (const event of events) {
        if (this.stopped || lease.signal.aborted) return;
        const planned = [...planTriggers(event), ...planLayerTriggers(event, { summaryIntervalRounds: this.options.summaryIntervalRounds ?? 4 })];
        if (planned.some((t) => t.scope === 'glossary')) known ??= knownTermsOf(snap.state, await this.layers.termKeys(campaignId));
        const tasks = this.withTerms(planned, event, known);
        if (tasks.length > 0) {
          cursors ??= await this.sql.cursors(campaignId);
          const outcomes = await this.outcomesOf(lease, snap.state, event, tasks, cursors, known);
          if (outcomes.events.length > 0) {
            if (plain !== null) processed = await this.advance(lease, processed, plain);
            plain = null;
            memoryVersion = await this.commit(lease, event, outcomes, { from: processed, to: event.version, memoryVersion });
            processed = event.version;
            continue;
          }
        }
        // Triggers nothing (or a trigger with nothing to summarize): the checkpoint moves over it with the next commit.
        plain = event.version;
      }
      if (plain !== null) processed = await this.advance(lease, processed, plain);
    } catch (err) {
      if (err instanceof Abandoned || err instanceof CheckpointMoved || err instanceof LeaseLostError) return;
      throw err;
    }
    // One batch per claim, then back of the queue: a busy campaign never starves the others.
    // Only this claim moves the checkpoint, so `processed` is where it stands.
    const heads = await this.reader.heads(campaignId);
    if (heads && processed < heads.game) this.again.add(campaignId);
  }

  /** Moves the checkpoint over events that trigger nothing. */
  private async advance(lease: CampaignLease, from: number, to: number): Promise<number> {
    await this.db.transaction((m) => this.moveCheckpoint(m, lease, { from, to }));
    this.progress.processed(lease.campaignId, to);
    return to;
  }

  /** The last statement of a worker transaction: the checkpoint moves only from where this claim left it, and only while the claim holds. */
  private async moveCheckpoint(m: EntityManager, lease: CampaignLease, move: CheckpointMove): Promise<void> {
    // Fence first: on PostgreSQL it keeps the lease row locked until commit, so no takeover slips in before the move.
    await this.ownership.fence(m, lease);
    if (!(await CheckpointStore.move(m, lease.campaignId, move))) throw new CheckpointMoved();
  }

  /** A message's glossary task carries its new terms; one that coins nothing is no trigger at all. */
  private withTerms(tasks: ScopeTask[], event: StoredEvent, known: KnownTerms | null): ScopeTask[] {
    return tasks.flatMap((task) => {
      if (task.scope !== 'glossary') return [task];
      const message = event.data as Message;
      const terms = extractCoinedTerms(message.content, (term) => known!.has(term)).filter((t) => t.length <= MAX_TERM_CHARS);
      return terms.length ? [{ ...task, terms }] : [];
    });
  }

  /** Summarizes a trigger's tasks outside any transaction, with the model calls made; no events when there was nothing to summarize. */
  private async outcomesOf(lease: CampaignLease, state: CampaignState, event: StoredEvent, tasks: ScopeTask[], cursors: Map<string, number>, known: KnownTerms | null): Promise<Outcomes> {
    const campaignId = lease.campaignId;
    const stopOrLost = AbortSignal.any([this.abort.signal, lease.signal]);
    const outcomes: NewEvent[] = [];
    const meta = { correlationId: event.metadata.correlationId, causationId: `${event.streamId}@${event.version}` };
    const trigger: Trigger = { campaignId, event, signal: stopOrLost, calls: [] };
    try {
      for (const task of tasks) {
        const made =
          task.scope === 'glossary'
            ? await this.glossaryOutcomes(trigger, task, known!)
            : task.scope === 'summary'
              ? await this.summaryOutcomes(trigger, state, cursors)
              : await this.memoryOutcome(trigger, state, task, cursors);
        outcomes.push(...made.map((e) => ({ ...e, metadata: meta })));
      }
      if (this.stopped || lease.signal.aborted) throw new Abandoned();
    } catch (err) {
      await this.abandonCalls(campaignId, event, trigger.calls);
      throw err;
    }
    return { events: outcomes, calls: trigger.calls };
  }

  /** §12: calls whose outcome will never commit are still spent; recorded as abandoned, never lost to the ledger. */
  private async abandonCalls(campaignId: string, event: StoredEvent, calls: CallGroup[]): Promise<void> {
    if (!this.options.usage || calls.every((g) => g.calls.length === 0)) return;
    const entries = abandonedEntries(campaignId, event, calls, this.modelName());
    try {
      await this.options.usage.abandon(entries, writtenIds(calls));
      this.options.onCalls?.(abandonedEntries(campaignId, event, calls, this.modelName(), false));
    } catch (err) {
      this.logger.warn(`abandoned model calls not recorded: ${(err as Error).message}`, { campaignId, triggerVersion: event.version });
    }
  }

  private async writeAhead(trigger: Trigger, group: CallGroup, call: ModelCall): Promise<void> {
    const { campaignId, event } = trigger;
    const at = { campaignId, scope: group.scope, subjectId: group.subjectId, triggerVersion: event.version, model: this.modelName() };
    try {
      group.written.set(call, await this.options.usage!.pending(ledgerEntry(call, at, 'pending')));
    } catch (err) {
      // The call still reaches the ledger with its outcome; only the crash window stays open for it.
      this.logger.warn(`model call not written ahead: ${(err as Error).message}`, { campaignId, triggerVersion: event.version });
    }
  }

  private modelName(): string {
    return this.summarizer.model ?? this.summarizer.name;
  }

  /** ONE transaction: the outcomes on the memory stream, their projections, the checkpoint — fenced on the lease. The new memory version. */
  private async commit(lease: CampaignLease, event: StoredEvent, { events: outcomes, calls }: Outcomes, move: CheckpointMove & { memoryVersion: number }): Promise<number> {
    const campaignId = lease.campaignId;
    const memoryVersion = move.memoryVersion + outcomes.length;
    let entries: LedgerEntry[] = [];
    try {
      await this.db.transaction(async (m) => {
        await this.reader.lockForAppend(m, campaignId);
        const appended = await this.store.append(memoryStream(campaignId), move.memoryVersion, outcomes, event.recordedAt, m);
        await this.projector.apply(m, campaignId, appended, { memoryVersion: false });
        entries = this.options.usage ? committedEntries(campaignId, event, appended, calls, this.modelName()) : [];
        if (entries.length) await this.options.usage!.settle(m, writtenIds(calls), entries);
        // Last, so the lease row stays locked only for the commit itself.
        await this.moveCheckpoint(m, lease, { from: move.from, to: move.to, memoryVersion });
      });
    } catch (err) {
      await this.abandonCalls(campaignId, event, calls);
      throw err;
    }
    this.progress.processed(campaignId, event.version);
    for (const o of outcomes) this.options.onOutcome?.(...outcomeOf(o));
    if (entries.length) this.options.onCalls?.(entries);
    return memoryVersion;
  }

  /** Runs one model call under the retry policy, its attempts kept for the ledger; a shutdown abandons the whole trigger. */
  private async attempt(trigger: Trigger, about: { scope: string; subjectId: string }, call: (signal: AbortSignal) => Promise<SummaryResult>): Promise<SummaryOutcome> {
    const group: CallGroup = { ...about, calls: [], written: new Map() };
    trigger.calls.push(group);
    const onCall = this.options.writeAhead && this.options.usage ? (c: ModelCall) => this.writeAhead(trigger, group, c) : undefined;
    const outcome = await summarizeWithRetry(call, { attempts: this.options.attempts, timeoutMs: this.options.timeoutMs, signal: trigger.signal, onCall });
    group.calls = outcome.calls;
    if (!outcome.ok && outcome.reason === 'aborted') throw new Abandoned();
    return outcome;
  }

  private skipped(
    campaignId: string,
    task: { scope: 'location' | 'npc' | 'world' | 'summary' | 'glossary'; subjectId: string },
    outcome: SummaryOutcome & { ok: false },
    event: StoredEvent,
    since: number,
    through: number,
  ): MemoryEvent {
    this.logger.warn(`summary failed after ${outcome.attempts} attempts; skipped, cursor kept: ${outcome.reason}`, {
      campaignId,
      triggerVersion: event.version,
      scope: task.scope,
      subjectId: task.subjectId,
      correlationId: event.metadata.correlationId,
    });
    return {
      type: 'MemorySkipped',
      data: { scope: task.scope, subjectId: task.subjectId, reason: outcome.reason, attempts: outcome.attempts, triggerVersion: event.version, sinceMessageIndex: since, throughMessageIndex: through },
    };
  }

  /** §2: one location, NPC or world memory. */
  private async memoryOutcome(trigger: Trigger, state: CampaignState, task: ScopeTask, cursors: Map<string, number>): Promise<MemoryEvent[]> {
    const { campaignId, event } = trigger;
    const scope = task.scope as 'location' | 'npc' | 'world';
    const key = `${scope}:${task.subjectId}`;
    const cursor = cursors.get(key) ?? -1;
    const selection = await this.reader.messagesForScope(campaignId, {
      locationId: scope === 'world' ? undefined : (task.locationId ?? undefined),
      afterIndex: cursor,
      beforeVersion: event.version,
    });
    const npc = scope === 'npc' ? state.npcs[task.subjectId] : undefined;
    // §8: a scene memory is built from what its subject witnessed, and never from a dm-only message — not even one
    // the NPC spoke itself (the speaker rule makes it a witness of that line, the memory still leaves it out).
    const window = npc
      ? npcWindow(npc, (await this.witnessedOnly(campaignId, viewerKey('npc', npc.id), selection)).filter(notDmOnly))
      : selection.filter(isPublic);
    if (window.length === 0) return [];
    const outcome = await this.attempt(trigger, { scope, subjectId: task.subjectId }, (signal) => this.summarize(campaignId, state, task, window, signal));
    const since = window[0];
    const through = window[window.length - 1].index;
    if (!outcome.ok) return [this.skipped(campaignId, { scope, subjectId: task.subjectId }, outcome, event, since.index, through)];
    // §8: the cursor of a location or world memory moves over everything selected, the left-out secrets included.
    const moved = npc ? through : selection[selection.length - 1].index;
    cursors.set(key, moved);
    this.logger.log(`memory recorded`, { campaignId, triggerVersion: event.version, scope, subjectId: task.subjectId, correlationId: event.metadata.correlationId, messages: window.length, attempts: outcome.attempts });
    return [
      {
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
          throughMessageIndex: through,
          sinceTimestamp: since.at,
          // §8: dated in the story's time, the `at` of the last message summarized (replay-stable all the same).
          createdAt: window[window.length - 1].at,
          triggerVersion: event.version,
          cursor: moved,
          inputIndexes: window.map((m) => m.index),
          attempts: outcome.attempts,
          inputTokens: outcome.inputTokens,
          outputTokens: outcome.outputTokens,
        },
      },
    ];
  }

  /** §8 glossary: each new term of a dm/narrator/npc message gets a short definition; a failed one is offered again when next used. */
  private async glossaryOutcomes(trigger: Trigger, task: ScopeTask, known: KnownTerms): Promise<MemoryEvent[]> {
    const { campaignId, event } = trigger;
    const message = event.data as Message;
    const out: MemoryEvent[] = [];
    for (const term of task.terms ?? []) {
      const outcome = await this.attempt(trigger, { scope: 'glossary', subjectId: term }, (signal) => this.summarizer.defineTerm({ campaignId, term, messages: [toTranscript(message)] }, signal));
      if (!outcome.ok) {
        out.push(this.skipped(campaignId, { scope: 'glossary', subjectId: term }, outcome, event, message.index, message.index));
        continue;
      }
      known.add(term);
      out.push({
        type: 'GlossaryTermAdded',
        data: {
          term,
          definition: capDefinition(outcome.text),
          coinedMessageIndex: message.index,
          triggerVersion: event.version,
          createdAt: event.recordedAt,
          attempts: outcome.attempts,
          inputTokens: outcome.inputTokens,
          outputTokens: outcome.outputTokens,
        },
      });
    }
    return out;
  }

  /**
   * §8 "Previously": the previous summary + the messages after cursor `summary`, recorded before the trigger, that are
   * no longer hot in the round after it. Everyone's (the dm's), plus one per player over what it witnessed with perRoleMemory.
   */
  private async summaryOutcomes(trigger: Trigger, state: CampaignState, cursors: Map<string, number>): Promise<MemoryEvent[]> {
    const { campaignId, event } = trigger;
    const roundAfter = event.type === 'RoundEnded' ? Number(event.data.round) + 1 : roundAt(state, event.version);
    const maxRound = roundAfter - (this.options.hotRounds ?? 4);
    if (maxRound < 1) return [];
    const maxWords = this.options.rollingSummaryWords ?? 150;
    const perRole = state.settings.perRoleMemory;
    // §8: the dm's summary over everything; one per player with perRoleMemory, else a public one.
    const players = playerIdsOf(state).map((viewer) => ({ viewer }));
    const others: SummaryTarget[] = perRole ? players : [{ viewer: null, publicView: true }];
    const subjects: SummaryTarget[] = [{ viewer: null }, ...others];
    const out: MemoryEvent[] = [];
    // The dm's summary when it also serves as the public one (data null: its rewrite failed, the public one waits too).
    let shared: { data: RollingSummaryUpdatedData | null } | null = null;
    for (const target of subjects) {
      const { viewer } = target;
      const subject = target.publicView ? PUBLIC_SUMMARY_SUBJECT : summarySubject(viewer);
      const witness = viewer === null ? undefined : viewerKey('player', viewer);
      const cursor = cursors.get(`summary:${subject}`) ?? -1;
      if (target.publicView && shared) {
        // The dm's summary read only public lines from where the public one stands: it is the public one too.
        if (shared.data) {
          shared.data.alsoPublic = true;
          cursors.set(`summary:${subject}`, shared.data.throughMessageIndex);
        }
        continue;
      }
      const scope = { afterIndex: cursor, beforeVersion: event.version, maxRound, witnessedBy: witness };
      const selected = await this.reader.messagesForScope(campaignId, scope);
      const selection = target.publicView ? selected.filter(isPublic) : selected;
      if (selection.length === 0) continue;
      const summaryKey = target.publicView ? PUBLIC_SUMMARY_KEY : (witness ?? '*');
      const previous = await this.layers.latestSummary(campaignId, summaryKey);
      const input = {
        campaignId,
        previousSummary: previous?.summary ?? null,
        messages: selection.map(toTranscript),
        maxWords,
        viewer,
        ...(target.publicView ? { publicOnly: true } : {}),
      };
      const dmOfPublicLines = viewer === null && !target.publicView && !perRole && selection.every(isPublic);
      const sharing = dmOfPublicLines && (await this.publicInStep(campaignId, cursors, cursor, previous));
      const outcome = await this.attempt(trigger, { scope: 'summary', subjectId: subject }, (signal) =>
        this.summarizer.summarizeRolling(input, signal),
      );
      const since = selection[0].index;
      // The public summary's cursor moves over everything selected, the left-out secrets included.
      const through = selected[selected.length - 1].index;
      if (sharing) shared = { data: null };
      if (!outcome.ok) {
        out.push(this.skipped(campaignId, { scope: 'summary', subjectId: subject }, outcome, event, since, through));
        continue;
      }
      cursors.set(`summary:${subject}`, through);
      const data: RollingSummaryUpdatedData = {
        summary: capSentences(outcome.text, maxWords),
        viewer,
        ...(target.publicView ? { publicView: true } : {}),
        sinceMessageIndex: since,
        throughMessageIndex: through,
        triggerVersion: event.version,
        createdAt: event.recordedAt,
        inputIndexes: selection.map((m) => m.index),
        attempts: outcome.attempts,
        inputTokens: outcome.inputTokens,
        outputTokens: outcome.outputTokens,
      };
      if (shared && sharing) shared.data = data;
      out.push({ type: 'RollingSummaryUpdated', data });
    }
    return out;
  }

  /** The public summary stands where the dm's does, on the same text: the dm's next one can serve both. */
  private async publicInStep(
    campaignId: string,
    cursors: Map<string, number>,
    dmCursor: number,
    dmPrevious: RollingSummaryView | null,
  ): Promise<boolean> {
    if ((cursors.get(`summary:${PUBLIC_SUMMARY_SUBJECT}`) ?? -1) !== dmCursor) return false;
    const publicPrevious = await this.layers.latestSummary(campaignId, PUBLIC_SUMMARY_KEY);
    return (publicPrevious?.summary ?? null) === (dmPrevious?.summary ?? null);
  }

  /** The messages of `selection` the witness saw (§8 witnessing, the speaker rule included). */
  private async witnessedOnly(campaignId: string, witness: string, selection: StoredMessage[]) {
    if (selection.length === 0) return selection;
    const seen = new Set<number>();
    // Chunked: a long stay at one location selects more messages than a statement may bind.
    for (let i = 0; i < selection.length; i += 500) {
      const chunk = selection.slice(i, i + 500).map((m) => m.index);
      for (const idx of await this.reader.witnessed(campaignId, witness, chunk)) seen.add(idx);
    }
    return selection.filter((m) => seen.has(m.index));
  }

  private summarize(campaignId: string, state: CampaignState, task: ScopeTask, window: StoredMessage[], signal: AbortSignal): Promise<SummaryResult> {
    const messages = window.map(toTranscript);
    const location = task.locationId ? { id: task.locationId, name: state.locations[task.locationId]?.name ?? task.locationId } : null;
    if (task.scope === 'location') return this.summarizer.summarizeLocation({ campaignId, location: location!, messages }, signal);
    if (task.scope === 'npc') {
      const npc = state.npcs[task.subjectId];
      return this.summarizer.summarizeNpc({ campaignId, npc: { id: npc.id, name: npc.name, aliases: npc.aliases }, location, messages }, signal);
    }
    return this.summarizer.summarizeWorld({ campaignId, kind: task.worldKind!, event: describe(state, task), messages }, signal);
  }
}

/** One "Previously" the worker keeps: the dm's (viewer null), a player's, or the public one. */
interface SummaryTarget {
  viewer: string | null;
  publicView?: true;
}

/** The trigger being handled: its campaign, event, and the signal that abandons it (shutdown or a lost lease). */
interface Trigger {
  campaignId: string;
  event: StoredEvent;
  signal: AbortSignal;
  /** The model calls made so far, one group per summary. */
  calls: CallGroup[];
}

/** A trigger's outcome events and the model calls behind them. */
interface Outcomes {
  events: NewEvent[];
  calls: CallGroup[];
}

/** Metrics label of a committed outcome: glossary terms and summaries count as recorded in their own scope. */
function outcomeOf(o: NewEvent): ['recorded' | 'skipped', string] {
  if (o.type === 'GlossaryTermAdded') return ['recorded', 'glossary'];
  if (o.type === 'RollingSummaryUpdated') return ['recorded', 'summary'];
  return [o.type === 'MemorySkipped' ? 'skipped' : 'recorded', (o.data as { scope: string }).scope];
}

function toTranscript(m: Message): TranscriptLine {
  const line: TranscriptLine = { index: m.index, role: m.role, speaker: m.speaker, content: m.content, at: m.at };
  line.visibility = m.visibility;
  if (m.visibility === 'private') line.audience = m.audience;
  return line;
}

const isPublic = (m: Message) => m.visibility === 'public';
const notDmOnly = (m: Message) => m.visibility !== 'dm';

/** The world trigger in words, with names rather than ids where the state knows them. */
function describe(state: CampaignState, task: ScopeTask): string {
  const quest = task.questId ? state.quests[task.questId] : undefined;
  const location = task.locationId ? state.locations[task.locationId] : undefined;
  switch (task.worldKind) {
    case 'objective_completed': {
      const objectiveId = task.tags.find((t) => t.startsWith('objective:'))?.slice('objective:'.length);
      const objective = quest?.objectives.find((o) => o.id === objectiveId);
      return `Objective "${objective?.name ?? objectiveId}" of quest "${quest?.name ?? task.questId}" completed`;
    }
    case 'quest_completed':
      return `Quest "${quest?.name ?? task.questId}" completed`;
    case 'location_cleared':
      return `${location?.name ?? task.locationId} was cleared`;
    case 'encounter_completed':
      return `Encounter ${task.encounterId} at ${location?.name ?? task.locationId} completed`;
    default:
      return task.description ?? task.worldKind ?? 'world event';
  }
}
