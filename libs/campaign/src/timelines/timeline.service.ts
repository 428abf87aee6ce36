import { Clock, conflict, DomainError, invalid, newId, notFound } from '@app/common';
import { Database, IdempotencyStore, sql } from '@app/database';
import { EventStore, gameStream, memoryStream, StoredEvent } from '@app/event-store';
import { Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { GameEvent } from '../domain/events';
import { CampaignState } from '../domain/state';
import { CampaignProjector } from '../projections/campaign.projector';
import { readStateAt } from '../projections/campaign-row';
import { CampaignRows, CampaignTimeline, TimelineRewind } from '../projections/campaign.timeline';
import { WriteMeta } from '../campaign.runner';
import { Horizon } from './horizon';
import { MemoryVersionAt, TimelineChange, TimelineListener, TimelineParticipant } from './timeline.port';

/** One fork or rewind done inside an operation: what it appended and what listeners are told after the commit. */
interface Done {
  events: StoredEvent[];
  change: TimelineChange;
}

export interface ForkRequest {
  /** The fork's id (default a new UUID). */
  id?: string;
  /** Default: the parent's name at the fork point. */
  name?: string;
  /** Default: the parent's current version. */
  atVersion?: number;
}

export interface ForkReply {
  id: string;
  version: number;
  /** How far the fork's worker starts (the parent's as of the fork): the answer is the same on a replay. */
  processedVersion: number;
  parent: { id: string; version: number };
}

export interface RewindRequest {
  toVersion: number;
  /** Keep the whole pre-rewind campaign as a fork with this id first. */
  keepAs?: string;
}

export interface RewindReply {
  version: number;
  timeline: number;
  discarded: { game: number; memory: number };
  keptAs: string | null;
}

/** A timeline operation's answer (or the stored answer to its Idempotency-Key). */
export interface TimelineOutcome<R> {
  reply: R;
  replayed: boolean;
}

/**
 * Fork, rewind and delete (DESIGN §10): each in ONE transaction — the event store's streams, the campaign row,
 * then every registered participant (campaign projections, memory, search, state, …), set-based, then the one
 * event the operation appends. After the commit, listeners drop caches, abandon the worker's claim and tell the
 * event stream. No model is called: a fork copies the summaries recorded as events.
 */
export class TimelineService {
  private readonly participants: TimelineParticipant[] = [new CampaignTimeline()];
  private readonly listeners: TimelineListener[] = [];
  private memoryVersionAt: MemoryVersionAt = async () => ({ processedVersion: 0, memoryVersion: 0 });
  private readonly logger = new Logger('timelines');

  constructor(
    private readonly db: Database,
    private readonly store: EventStore,
    private readonly projector: CampaignProjector,
    private readonly clock: Clock,
    /** After each commit that appended events (wakes the memory worker of the fork or the rewound campaign). */
    private readonly onAppended: (campaignId: string, events: StoredEvent[]) => void = () => undefined,
    private readonly idempotency = new IdempotencyStore(),
  ) {}

  /** Called by each owning module at `onModuleInit`; runs in registration order after the campaign's own rows. */
  register(participant: TimelineParticipant): void {
    this.participants.push(participant);
  }

  /** Memory registers how to find its stream's version as of a game version (its checkpoint, its trigger index). */
  useMemoryVersionAt(at: MemoryVersionAt): void {
    this.memoryVersionAt = at;
  }

  /** Told after each committed operation; a listener that throws is logged, never fails the operation. */
  onChange(listener: TimelineListener): void {
    this.listeners.push(listener);
  }

  /**
   * `present` builds the answer inside the fork's transaction (from the fork's rows as committed), so that the answer
   * recorded for an Idempotency-Key is the one the first call got: a retry answers the same (DESIGN §3), however far
   * the fork's worker has moved on since.
   */
  async fork<R = ForkReply>(
    parentId: string,
    req: ForkRequest,
    meta: WriteMeta = {},
    present?: (m: EntityManager, reply: ForkReply, state: CampaignState) => Promise<R>,
  ): Promise<TimelineOutcome<R>> {
    const out = await this.db.transaction((m) =>
      this.once(m, parentId, meta, async (parent) => {
        const forked = await this.forkIn(m, parent, req);
        const reply = present
          ? await present(m, forked.reply, await this.projector.load(m, forked.reply.id))
          : (forked.reply as R);
        return { reply, done: [forked] };
      }),
    );
    return this.settle(out);
  }

  async rewind(campaignId: string, req: RewindRequest, meta: WriteMeta = {}): Promise<TimelineOutcome<RewindReply>> {
    const out = await this.db.transaction((m) =>
      this.once(m, campaignId, meta, async (state) => {
        if (!Number.isInteger(req.toVersion) || req.toVersion < 1 || req.toVersion > state.version)
          throw invalid('INVALID_VERSION', `toVersion ${req.toVersion} is outside 1..${state.version}`);
        const done: Done[] = [];
        // The whole pre-rewind campaign first: a taken id is 409 before anything is written.
        if (req.keepAs !== undefined)
          done.push(await this.forkIn(m, state, { id: req.keepAs, atVersion: state.version }));
        const timeline = await CampaignRows.timeline(m, campaignId);
        const keptAs = req.keepAs ?? null;
        if (req.toVersion === state.version) {
          return { reply: { version: state.version, timeline, discarded: { game: 0, memory: 0 }, keptAs }, done };
        }
        const rewound = await this.rewindIn(m, state, req.toVersion, timeline + 1, keptAs);
        return { reply: rewound.reply, done: [...done, rewound] };
      }),
    );
    return this.settle(out);
  }

  /**
   * Everything of the campaign, in one transaction; its forks are untouched. No Idempotency-Key is kept (nothing of
   * the campaign may remain): a repeated delete answers 404.
   */
  async delete(campaignId: string, meta: WriteMeta = {}): Promise<void> {
    await this.db.transaction(async (m) => {
      const state = await this.lockAndLoad(m, campaignId, meta);
      await this.store.deleteStream(gameStream(campaignId), m);
      await this.store.deleteStream(memoryStream(campaignId), m);
      for (const p of this.participants) await p.remove(m, campaignId);
      await this.idempotency.removeCampaign(m, campaignId);
      await CampaignRows.remove(m, campaignId);
      return state;
    });
    this.projector.cache.dropCampaign(campaignId);
    this.tell([{ kind: 'deleted', campaignId }]);
  }

  /** The campaign's current timeline and the rewinds that made it (the event stream's mapping of older ids). */
  async timelineOf(campaignId: string): Promise<{ timeline: number; rewinds: TimelineRewind[] }> {
    return this.db.read(async (m) => ({
      timeline: await CampaignRows.timeline(m, campaignId),
      rewinds: await CampaignRows.rewinds(m, campaignId),
    }));
  }

  /**
   * The state as of `version`: the current one from the projector, an earlier one from the state rows valid then
   * (index seeks inside this transaction, as an as-of read does: the cost follows the live entities, not the history).
   */
  private async stateAt(m: EntityManager, current: CampaignState, version: number): Promise<CampaignState> {
    if (version === current.version) return current;
    return (await readStateAt(m, current.id, version)).state;
  }

  /** The cut at `state` (a state as of V): N(V), M(V), the recordedAt of event V. */
  private async pointAt(
    m: EntityManager,
    state: CampaignState,
    timeline: number,
  ): Promise<Horizon & { processedVersion: number }> {
    const [event] = await this.store.readStream(gameStream(state.id), { after: state.version - 1, limit: 1 }, m);
    const cut = await this.memoryVersionAt(m, state.id, state.version);
    return {
      version: state.version,
      timeline,
      messageCount: state.messageCount,
      memoryVersion: cut.memoryVersion,
      processedVersion: cut.processedVersion,
      at: event?.recordedAt ?? null,
      current: false,
    };
  }

  private async forkIn(m: EntityManager, parent: CampaignState, req: ForkRequest) {
    const v = req.atVersion ?? parent.version;
    if (!Number.isInteger(v) || v < 1 || v > parent.version)
      throw invalid('INVALID_VERSION', `atVersion ${v} is outside 1..${parent.version}`);
    const id = req.id ?? newId();
    const taken =
      id === parent.id || (await CampaignRows.exists(m, id)) || (await this.store.streamVersion(gameStream(id), m)) > 0;
    if (taken) throw conflict('CAMPAIGN_EXISTS', `campaign ${id} already exists`);
    const atV = await this.stateAt(m, parent, v);
    const point = await this.pointAt(m, atV, 1);
    await this.store.copyStreams(
      [
        { from: gameStream(parent.id), to: gameStream(id), until: v },
        { from: memoryStream(parent.id), to: memoryStream(id), until: point.memoryVersion },
      ],
      m,
    );
    // A new campaign: timeline 1, no rewinds of its own (the parent's are the parent's).
    const child: CampaignState = { ...atV, id, timeline: 1, rewinds: [] };
    await CampaignRows.fork(m, parent.id, id, child, v);
    for (const p of this.participants) await p.copy(m, parent.id, id, point);
    const forked: GameEvent = {
      type: 'CampaignForked',
      data: { parentId: parent.id, parentVersion: v, name: req.name ?? atV.name },
    };
    const events = await this.appendIn(m, child, forked);
    const reply: ForkReply = {
      id,
      version: v + 1,
      processedVersion: point.processedVersion,
      parent: { id: parent.id, version: v },
    };
    const change: TimelineChange = { kind: 'forked', campaignId: id, parentId: parent.id, version: v + 1 };
    return { reply, events, change };
  }

  private async rewindIn(m: EntityManager, state: CampaignState, to: number, timeline: number, keptAs: string | null) {
    const rewinds = [...(state.rewinds ?? []), { timeline, fromVersion: state.version, toVersion: to }];
    const atTo: CampaignState = { ...(await this.stateAt(m, state, to)), timeline, rewinds };
    const point = await this.pointAt(m, atTo, timeline);
    const game = await this.store.truncateStream(gameStream(state.id), to, m);
    const memory = await this.store.truncateStream(memoryStream(state.id), point.memoryVersion, m);
    const at = this.clock.now().toISOString();
    await CampaignRows.rewind(m, atTo, {
      fromVersion: state.version,
      timeline,
      memoryVersion: point.memoryVersion,
      keptAs,
      at,
    });
    for (const p of this.participants) await p.rewind(m, state.id, point, timeline);
    const rewound: GameEvent = { type: 'CampaignRewound', data: { fromVersion: state.version, toVersion: to, keptAs } };
    const events = await this.appendIn(m, atTo, rewound);
    const reply: RewindReply = { version: to + 1, timeline, discarded: { game, memory }, keptAs };
    const change: TimelineChange = {
      kind: 'rewound',
      campaignId: state.id,
      timeline,
      fromVersion: state.version,
      toVersion: to,
      version: to + 1,
    };
    return { reply, events, change };
  }

  private async appendIn(m: EntityManager, before: CampaignState, event: GameEvent): Promise<StoredEvent[]> {
    const now = this.clock.now().toISOString();
    const events = await this.store.append(gameStream(before.id), before.version, [{ ...event, metadata: {} }], now, m);
    await this.projector.apply(m, before, events);
    return events;
  }

  /** Lock (PostgreSQL), load, 404, If-Match: what every operation starts with. */
  private async lockAndLoad(m: EntityManager, campaignId: string, meta: WriteMeta): Promise<CampaignState> {
    // PostgreSQL: the campaign's writers and its worker's commits queue on this row (lockForAppend).
    if (this.db.dialect === 'postgres')
      await sql(m, 'SELECT "id" FROM "campaigns" WHERE "id" = ? FOR UPDATE', [campaignId]);
    const state = await this.projector.load(m, campaignId);
    if (state.version === 0) throw notFound('CAMPAIGN_NOT_FOUND', `campaign ${campaignId} not found`);
    if (meta.expectedVersion !== undefined && meta.expectedVersion !== state.version) {
      throw new DomainError(
        'precondition',
        'VERSION_MISMATCH',
        `campaign ${campaignId} is at version ${state.version}, not ${meta.expectedVersion}`,
      );
    }
    return state;
  }

  /** One attempt with Idempotency-Key replay and record, as the runner does for commands. */
  private async once<R>(
    m: EntityManager,
    campaignId: string,
    meta: WriteMeta,
    run: (state: CampaignState) => Promise<{ reply: R; done: Done[] }>,
  ): Promise<{ reply: R; replayed: boolean; done: Done[] }> {
    const idem = meta.idempotency;
    const prior = idem && (await this.idempotency.replay<{ reply: R }>(m, idem));
    if (prior !== undefined) return { reply: prior.reply, replayed: true, done: [] };
    const state = await this.lockAndLoad(m, campaignId, meta);
    const { reply, done } = await run(state);
    if (idem) await this.idempotency.record(m, idem, 0, { reply }, this.clock.now().toISOString());
    return { reply, replayed: false, done };
  }

  private settle<R>(out: { reply: R; replayed: boolean; done: Done[] }): TimelineOutcome<R> {
    // The rewound campaign's cached states belong to its old timeline; a fork's state is cached on first read.
    for (const d of out.done) if (d.change.kind === 'rewound') this.projector.cache.dropCampaign(d.change.campaignId);
    this.tell(out.done.map((d) => d.change));
    for (const d of out.done) if (d.events.length) this.onAppended(d.change.campaignId, d.events);
    return { reply: out.reply, replayed: out.replayed };
  }

  private tell(changes: TimelineChange[]): void {
    for (const change of changes) {
      for (const listener of this.listeners) {
        try {
          listener(change);
        } catch (err) {
          this.logger.error(`timeline listener failed on ${change.kind} ${change.campaignId}: ${String(err)}`);
        }
      }
    }
  }
}
