import { Clock, DomainError } from '@app/common';
import { EventMetadata, EventStore, gameStream, StoredEvent, WrongExpectedVersionError } from '@app/event-store';
import { Database, IdempotencyKey, IdempotencyStore, isUniqueViolation, sql } from '@app/database';
import { EntityManager } from 'typeorm';
import { CampaignCommand } from './domain/commands';
import { decide } from './domain/decide';
import { ReplyOf, replyTo, timelineOf } from './domain/replies';
import { CampaignState } from './domain/state';
import { CampaignProjector } from './projections/campaign.projector';
import { ToolCallRecord } from './projections/message.entity';

export interface WriteMeta {
  /** If-Match: the version the caller expects; a mismatch is 412. */
  expectedVersion?: number;
  /**
   * If-Match `<timeline>:<version>`: the timeline the caller expects (DESIGN §10). Without it a plain version means
   * the current timeline, and is 412 when a rewind discarded that version of an earlier timeline.
   */
  expectedTimeline?: number;
  idempotency?: IdempotencyKey;
  metadata?: EventMetadata;
}

/** What a write answers: the command's reply (or the stored answer to its Idempotency-Key) and what it appended. */
export interface CommandOutcome<R = ReplyOf> {
  reply: R;
  /** True when an earlier request with the same Idempotency-Key answered. */
  replayed: boolean;
  events: StoredEvent[];
  /**
   * A replayed answer stored before replies were (a rendered HTTP body, from an older release), to send
   * back as it is.
   */
  storedBody?: unknown;
}

/** How `once` stores an answer in `idempotency_keys`; anything else there is a body an older release rendered. */
interface StoredReply {
  reply: unknown;
}

const MAX_RACE_RETRIES = 20;

/**
 * Completes a command with what only the database knows, inside the write's transaction (after the campaign is
 * locked, before `decide`): e.g. which tool-call ids exist, or memory's status of a memory to correct. Returns the
 * command unchanged when it is not its type. Other modules register theirs with `CampaignRunner.prepareWith`, so
 * the campaign imports none of them.
 */
export type CommandPreparer = (
  m: EntityManager,
  campaignId: string,
  command: CampaignCommand,
) => Promise<CampaignCommand>;

/** Load → decide → append + project, in one transaction; retried on a lost version race. */
export class CampaignRunner {
  constructor(
    private readonly db: Database,
    private readonly store: EventStore,
    private readonly projector: CampaignProjector,
    private readonly clock: Clock,
    /** Called after each commit that appended events (wakes the memory worker). */
    private readonly onAppended: (campaignId: string, events: StoredEvent[]) => void = () => undefined,
    private readonly idempotency = new IdempotencyStore(),
  ) {}

  private readonly preparers: CommandPreparer[] = [withToolCalls, withRetracted];

  /** Registers a `CommandPreparer` (at module init, before any write). */
  prepareWith(preparer: CommandPreparer): void {
    this.preparers.push(preparer);
  }

  async run<C extends CampaignCommand>(
    campaignId: string,
    command: C,
    meta: WriteMeta,
  ): Promise<CommandOutcome<ReplyOf<C['type']>>> {
    for (let attempt = 0; ; attempt++) {
      try {
        const { outcome, state } = await this.db.transaction((m) => this.once(m, campaignId, command, meta));
        if (state) this.projector.committed(state);
        if (outcome.events.length) this.onAppended(campaignId, outcome.events);
        return outcome;
      } catch (err) {
        const raced =
          err instanceof WrongExpectedVersionError ||
          (err instanceof Error && /moved during append/.test(err.message)) ||
          (meta.idempotency !== undefined && isUniqueViolation(err));
        if (!raced) throw err;
        if (meta.expectedVersion !== undefined) {
          throw new DomainError(
            'precondition',
            'VERSION_MISMATCH',
            `campaign ${campaignId} changed concurrently; expected version ${expectedOf(meta)}`,
          );
        }
        if (attempt >= MAX_RACE_RETRIES)
          throw new DomainError('conflict', 'CONCURRENT_WRITE', `campaign ${campaignId} is too busy; retry`);
        // Jitter, so that writers who keep colliding (e.g. on several replicas) spread out.
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(100, 2 ** attempt)));
      }
    }
  }

  /** One attempt; `state` is the campaign state it read or wrote, for the cache once committed. */
  private async once<C extends CampaignCommand>(
    m: EntityManager,
    campaignId: string,
    command: C,
    meta: WriteMeta,
  ): Promise<{ outcome: CommandOutcome<ReplyOf<C['type']>>; state?: CampaignState }> {
    // PostgreSQL: writers of one campaign queue on its row, on every replica, instead of racing to a retry.
    if (this.db.dialect === 'postgres')
      await sql(m, 'SELECT "id" FROM "campaigns" WHERE "id" = ? FOR UPDATE', [campaignId]);
    const idem = meta.idempotency;
    const prior = idem && (await this.idempotency.replay<unknown>(m, idem));
    if (prior !== undefined) return { outcome: replayOf(prior) };
    const state = await this.projector.load(m, campaignId);
    checkIfMatch(campaignId, state, meta);
    let prepared: CampaignCommand = command;
    for (const prepare of this.preparers) prepared = await prepare(m, campaignId, prepared);
    const decided = decide(state, prepared);
    const now = this.clock.now().toISOString();
    const metadata = { ...meta.metadata, ...(idem ? { idempotencyKey: idem.key } : {}) };
    const events = await this.store.append(
      gameStream(campaignId),
      state.version,
      decided.map((e) => ({ ...e, metadata })),
      now,
      m,
    );
    const after = events.length ? await this.projector.apply(m, state, events) : state;
    const reply = replyTo(after, command, decided);
    if (idem) await this.idempotency.record(m, idem, 0, { reply } satisfies StoredReply, now);
    return { outcome: { reply, replayed: false, events }, state: after.version > 0 ? after : undefined };
  }
}

/** Tool results must name an earlier call (DESIGN §7): look up only the ids the batch uses. */
async function withToolCalls(m: EntityManager, campaignId: string, command: CampaignCommand): Promise<CampaignCommand> {
  if (command.type !== 'RecordMessages') return command;
  const wanted = [...new Set(command.messages.map((x) => x.toolCallId).filter((x): x is string => !!x))];
  if (wanted.length === 0) return command;
  const rows = await m
    .getRepository(ToolCallRecord)
    .createQueryBuilder('t')
    .where('t.campaignId = :campaignId AND t.callId IN (:...wanted)', { campaignId, wanted })
    .getMany();
  return { ...command, knownToolCallIds: new Set(rows.map((r) => r.callId)) };
}

/**
 * Which of the indexes to retract are retracted already (409 MESSAGE_RETRACTED), read in the write's transaction:
 * two racing retractions of one message cannot both append. The PK seek per index; at most 500 of them.
 */
async function withRetracted(m: EntityManager, campaignId: string, command: CampaignCommand): Promise<CampaignCommand> {
  if (command.type !== 'RetractMessages' || command.indexes.length === 0) return command;
  const indexes = [...new Set(command.indexes)].filter((i) => Number.isInteger(i) && i >= 0);
  if (indexes.length === 0) return { ...command, retracted: new Set() };
  const rows = await sql<{ idx: number | string }>(
    m,
    `SELECT idx FROM messages WHERE campaign_id = ? AND idx IN (${indexes.map(() => '?').join(', ')}) ` +
      'AND retracted_version IS NOT NULL',
    [campaignId, ...indexes],
  );
  return { ...command, retracted: new Set(rows.rows.map((r) => Number(r.idx))) };
}

const expectedOf = (meta: WriteMeta) =>
  meta.expectedTimeline === undefined ? `${meta.expectedVersion}` : `${meta.expectedTimeline}:${meta.expectedVersion}`;

/**
 * If-Match (DESIGN §10): `<timeline>:<version>` must be exactly the campaign's. A plain `<version>` means the current
 * timeline, but is 412 when an earlier timeline also reached that version (a rewind from at or above it to below
 * it): it may name the discarded version, even after the campaign grew back past it.
 */
function checkIfMatch(campaignId: string, state: CampaignState, meta: WriteMeta): void {
  const version = meta.expectedVersion;
  if (version === undefined) return;
  const timeline = timelineOf(state);
  const now = `${timeline}:${state.version}`;
  const mismatch = (why: string) =>
    new DomainError(
      'precondition',
      'VERSION_MISMATCH',
      `campaign ${campaignId} is at ${now} (If-Match "<timeline>:<version>"), not ${expectedOf(meta)}${why}`,
    );
  if (meta.expectedTimeline !== undefined) {
    if (meta.expectedTimeline !== timeline || version !== state.version) throw mismatch('');
    return;
  }
  if (version !== state.version) throw mismatch('');
  if ((state.rewinds ?? []).some((r) => r.fromVersion >= version && r.toVersion < version))
    throw mismatch(`: version ${version} of an earlier timeline was rewound; send "${now}"`);
}

function replayOf<R>(stored: unknown): CommandOutcome<R> {
  const isReply =
    typeof stored === 'object' && stored !== null && Object.keys(stored).length === 1 && 'reply' in stored;
  if (isReply) return { reply: (stored as StoredReply).reply as R, replayed: true, events: [] };
  return { reply: undefined as R, replayed: true, events: [], storedBody: stored };
}

export const CAMPAIGN_RUNNER = Symbol('CAMPAIGN_RUNNER');
