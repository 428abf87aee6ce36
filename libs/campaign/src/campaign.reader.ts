import { EventStore, gameStream, memoryStream, StoredEvent } from '@app/event-store';
import { Database, sql } from '@app/database';
import { CampaignStateCache } from './projections/campaign-state.cache';
import { messageCountAt, readCampaignRow, readStateAt } from './projections/campaign-row';
import { stateChars } from './projections/campaign-state.cache';
import { STATE_KINDS, StateKind } from './domain/state-rows';
import { invalidVersion, notFound } from '@app/common';
import { CampaignState } from './domain/state';
import { EntityManager } from 'typeorm';
import * as q from './projections/message.queries';
import { MessageHorizon, RecentWindow, StoredMessage } from './projections/message.queries';
import { checkAsOf, currentHorizon } from './horizon';
import { Horizon } from './timelines/horizon';

/** A campaign's state and how far the read sees; how far the memory worker got is memory's to say (CheckpointStore). */
export interface CampaignSnapshot {
  state: CampaignState;
  /** What every read of this snapshot is bounded by (the current horizon unless `asOf` was asked). */
  horizon: Horizon;
}

/** A fork of a campaign (DESIGN §10): its id and the parent version it was forked at. */
export interface CampaignChild {
  id: string;
  atVersion: number;
}

/** A campaign as the campaign list shows it (DESIGN §10 "Fork"). */
export interface CampaignListItem {
  id: string;
  name: string;
  version: number;
  /** The campaign it was forked from and at which version; null for a root. */
  parent: { id: string; version: number } | null;
  createdAt: string;
}

interface ListRow {
  id: string;
  name: string;
  version: number | string;
  parent_id: string | null;
  parent_version: number | string | null;
  created_at: string;
}

const streamOf = (campaignId: string, stream: 'game' | 'memory') =>
  stream === 'game' ? gameStream(campaignId) : memoryStream(campaignId);

/** Read side of the campaign projections; every read is an indexed lookup or range (but the glossary text search). */
export class CampaignReader {
  constructor(
    private readonly db: Database,
    private readonly store: EventStore,
    /** Shared with the CampaignProjector, so that reads reuse the state the last write left. */
    private readonly cache = new CampaignStateCache(),
  ) {}

  async find(campaignId: string): Promise<CampaignSnapshot | null> {
    const row = await this.db.read((m) => readCampaignRow(m, campaignId, this.cache));
    if (!row) return null;
    // A committed row: later reads and writes may reuse its assembled state.
    if (row.assembled) this.cache.put(row.state, row.timeline, stateChars.get(row.state)!);
    return { state: row.state, horizon: currentHorizon(row.state) };
  }

  /**
   * The campaign as a read sees it: the current snapshot, or (with `asOf`, DESIGN §10) the state at that version with
   * its horizon. 404 for an unknown campaign, 400 INVALID_VERSION for a version it never had. `kinds`: the state rows a
   * past state needs (the others come out empty, see `stateAt`); a current state is always whole.
   */
  async snapshot(campaignId: string, asOf?: number, kinds?: readonly StateKind[]): Promise<CampaignSnapshot> {
    const current = await this.get(campaignId);
    if (asOf === undefined) return current;
    checkAsOf(asOf, current.state.version);
    // Asked for, the newest version is history too (memory bounded, facts judged at its time): the same answer a fork
    // at it serves. Only its state needs no load.
    const [state, horizon] = await Promise.all([
      asOf === current.state.version ? current.state : this.stateAt(campaignId, asOf, kinds),
      this.horizonAt(campaignId, asOf, current.horizon.timeline),
    ]);
    return { state, horizon };
  }

  /**
   * The horizon of a read: current (no extra read) or as of a version (three index seeks). Reads that need no state
   * (messages, memories, events, search) ask for this rather than `snapshot`, which assembles the state at V too.
   */
  async horizon(campaignId: string, asOf?: number): Promise<Horizon> {
    const current = await this.get(campaignId);
    if (asOf === undefined) return current.horizon;
    checkAsOf(asOf, current.state.version);
    return this.horizonAt(campaignId, asOf, current.horizon.timeline);
  }

  private async horizonAt(campaignId: string, version: number, timeline: number): Promise<Horizon> {
    return this.db.read(async (m) => {
      const at = await sql<{ recorded_at: string }>(
        m,
        'SELECT recorded_at FROM events WHERE stream_id = ? AND stream_version = ?',
        [gameStream(campaignId), version],
      );
      return {
        version,
        timeline,
        messageCount: await messageCountAt(m, campaignId, version),
        // M(V): the memory stream's prefix of outcomes of game events ≤ V (one seek of ix_events_trigger).
        memoryVersion: await this.store.versionAtTrigger(memoryStream(campaignId), version, m),
        at: at.rows[0]?.recorded_at ?? null,
        current: false,
      };
    });
  }

  /** M(V): the memory stream's highest version among outcomes of game events ≤ V (one index seek, §10). */
  private async memoryVersionAt(m: EntityManager, campaignId: string, version: number): Promise<number> {
    return this.store.versionAtTrigger(memoryStream(campaignId), version, m);
  }

  /**
   * The campaign's state as of game version `version` (DESIGN §10 as-of reads) in its current timeline, with only
   * the `kinds` of state rows asked for (the others come out empty; unknown kinds are ignored): one seek per live
   * entity of a churning kind, a range scan of the others, never a replay (docs/state.md). 404 for an unknown
   * campaign, 400 INVALID_VERSION outside 1..version. States of a timeline never change, so they are cached by
   * (timeline, version, kinds).
   */
  async stateAt(campaignId: string, version: number, kinds: readonly string[] = STATE_KINDS): Promise<CampaignState> {
    const wanted = STATE_KINDS.filter((k) => kinds.includes(k));
    return this.db.read(async (m) => {
      const text = 'SELECT "version", "timeline" FROM "campaigns" WHERE "id" = ?';
      type Head = { version: number | string; timeline: number | string };
      const head = (await sql<Head>(m, text, [campaignId])).rows[0];
      if (!head) throw notFound('CAMPAIGN_NOT_FOUND', `campaign ${campaignId} not found`);
      if (!Number.isInteger(version) || version < 1 || version > Number(head.version))
        throw invalidVersion('asOf', version, Number(head.version));
      const timeline = Number(head.timeline);
      const cached = this.cache.getAsOf(campaignId, timeline, version, wanted);
      if (cached) return cached;
      const atV = await readStateAt(m, campaignId, version, wanted);
      const state = { ...atV.state, timeline };
      // One snapshot on SQLite; on PostgreSQL a rewind committed in between could have changed the rows at V,
      // so only a state whose timeline still holds is kept.
      const again = (await sql<{ timeline: number | string }>(m, text, [campaignId])).rows[0];
      if (again && Number(again.timeline) === timeline) this.cache.putAsOf(state, timeline, wanted, atV.chars);
      return state;
    });
  }

  async get(campaignId: string): Promise<CampaignSnapshot> {
    const found = await this.find(campaignId);
    if (!found) throw notFound('CAMPAIGN_NOT_FOUND', `campaign ${campaignId} not found`);
    return found;
  }

  /** Messages after an exclusive index, oldest first; with `witnessedBy` (a viewer key, §8) only those it witnessed. */
  messages(
    campaignId: string,
    o: {
      after?: number;
      limit: number;
      locationId?: string;
      witnessedBy?: string;
      at?: MessageHorizon;
      includeRetracted?: boolean;
    },
  ): Promise<StoredMessage[]> {
    return this.db.read((m) => q.listMessages(m, campaignId, { ...o, seenBy: o.witnessedBy }));
  }

  /** The last `limit` messages (optionally from a round on), oldest first. */
  lastMessages(
    campaignId: string,
    o: { limit: number; fromRound?: number; beforeIndex?: number },
  ): Promise<StoredMessage[]> {
    return this.db.read((m) => q.lastMessages(m, campaignId, o));
  }

  messagesByIndex(campaignId: string, indexes: number[], at?: MessageHorizon): Promise<StoredMessage[]> {
    if (indexes.length === 0) return Promise.resolve([]);
    return this.db.read((m) => q.messagesByIndex(m, campaignId, indexes, at));
  }

  /** Messages whose `at` falls in [from, to) (ISO strings), oldest first, at most `limit` (§8: a named day) */
  messagesBetween(
    campaignId: string,
    o: { from: string; to: string; limit: number },
    at?: MessageHorizon,
  ): Promise<StoredMessage[]> {
    return this.db.read((m) => q.messagesBetween(m, campaignId, o, at));
  }

  /**
   * Scope selection for the memory worker: `locationId`, index > cursor, recorded before `beforeVersion`;
   * §8: only rounds up to `maxRound`, only messages `witnessedBy` a viewer key.
   */
  messagesForScope(
    campaignId: string,
    o: {
      locationId?: string;
      afterIndex: number;
      beforeVersion: number;
      roles?: string[];
      maxRound?: number;
      witnessedBy?: string;
    },
  ): Promise<StoredMessage[]> {
    return this.db.read((m) => q.messagesForScope(m, campaignId, { ...o, seenBy: o.witnessedBy }));
  }

  /** Every index `viewer` (a witness key) witnessed, visible at `at`, ascending: the positions of its `seq`. */
  witnessedOrder(campaignId: string, viewer: string, at: MessageHorizon): Promise<number[]> {
    return this.db.read((m) => q.witnessedOrder(m, campaignId, viewer, at));
  }

  /** The subset of `indexes` that `viewer` (a witness key, or PUBLIC_WITNESS) witnessed. */
  witnessed(campaignId: string, viewer: string, indexes: number[], at?: MessageHorizon): Promise<Set<number>> {
    if (indexes.length === 0) return Promise.resolve(new Set());
    return this.db.read((m) => q.witnessedIndexes(m, campaignId, viewer, indexes, at));
  }

  /**
   * The Recent Messages window (DESIGN §7): the last `limit` messages, or (with `fromRound`) those from that round
   * on, capped at `limit`; §8 `seenBy`: only what that audience may see (a witness key, PUBLIC_WITNESS = public
   * messages only, undefined = everything). Index seeks and bounded index ranges, never a scan.
   */
  window(
    campaignId: string,
    o: { limit: number; fromRound?: number; seenBy?: string; at?: MessageHorizon },
  ): Promise<RecentWindow> {
    return this.db.read((m) => q.recentWindow(m, campaignId, o));
  }

  /** Call id → tool name of the given calls. */
  toolCalls(campaignId: string, callIds: string[]): Promise<Map<string, string>> {
    if (callIds.length === 0) return Promise.resolve(new Map());
    return this.db.read((m) => q.toolNames(m, campaignId, callIds));
  }

  /** Round of each message index (negative indexes skipped). */
  rounds(campaignId: string, indexes: number[]): Promise<Map<number, number>> {
    return this.db.read((m) => q.messageRounds(m, campaignId, indexes));
  }

  /**
   * The texts of the messages `viewer` saw that contain one of the lower-case `needles` (case-insensitive
   * substring), oldest first: the glossary's pre-filter before its whole-word test.
   */
  contentsContaining(campaignId: string, needles: string[], viewer: string, at?: MessageHorizon): Promise<string[]> {
    if (needles.length === 0) return Promise.resolve([]);
    return this.db.read((m) => q.contentsContaining(m, campaignId, needles, viewer, at));
  }

  async events(
    campaignId: string,
    stream: 'game' | 'memory',
    o: { after?: number; until?: number; limit: number },
  ): Promise<StoredEvent[]> {
    return this.store.readStream(streamOf(campaignId, stream), { after: o.after, until: o.until, limit: o.limit });
  }

  /** Both stream versions from one statement, so they describe one moment: null when there is no such campaign. */
  async heads(campaignId: string): Promise<{ game: number; memory: number } | null> {
    const [game, memory] = await this.store.streamVersions([gameStream(campaignId), memoryStream(campaignId)]);
    // The campaign row and its game stream's first event commit together: no game stream, no campaign.
    return game > 0 ? { game, memory } : null;
  }

  /**
   * `heads` and the campaign's timeline in ONE statement (one snapshot on PostgreSQL, where a rewind on another
   * replica may commit between two): what an open event stream reads on every wake-up. null: no such campaign.
   */
  async headsInTimeline(campaignId: string): Promise<{ game: number; memory: number; timeline: number } | null> {
    const head = (s: string) => `(SELECT MAX("stream_version") FROM "events" WHERE "stream_id" = ?) AS "${s}"`;
    const timeline = '(SELECT "timeline" FROM "campaigns" WHERE "id" = ?) AS "t"';
    const text = `SELECT ${head('game')}, ${head('memory')}, ${timeline}`;
    type Row = Record<'game' | 'memory' | 't', number | string | null>;
    const params = [gameStream(campaignId), memoryStream(campaignId), campaignId];
    const row = (await this.db.read((m) => sql<Row>(m, text, params))).rows[0];
    if (!row || Number(row.game ?? 0) === 0 || row.t === null) return null;
    return { game: Number(row.game), memory: Number(row.memory ?? 0), timeline: Number(row.t) };
  }

  /** A stream's version as of a global position (where an event of the other stream stands). */
  versionAt(campaignId: string, stream: 'game' | 'memory', position: number): Promise<number> {
    return this.store.streamVersionAt(streamOf(campaignId, stream), position);
  }

  /** Campaigns by id after an exclusive id, `limit` of those `visible` accepts (an API key's scope). */
  async list(o: { after?: string; limit: number; visible?: (id: string) => boolean }): Promise<CampaignListItem[]> {
    const page = Math.max(o.limit, 200);
    const found: CampaignListItem[] = [];
    let after = o.after ?? '';
    for (;;) {
      const text =
        'SELECT "id", "name", "version", "parent_id", "parent_version", "created_at" FROM "campaigns"' +
        ' WHERE "id" > ? ORDER BY "id" LIMIT ?';
      const { rows } = await this.db.read((m) => sql<ListRow>(m, text, [after, page]));
      for (const r of rows) {
        if (o.visible && !o.visible(r.id)) continue;
        const parent = r.parent_id === null ? null : { id: r.parent_id, version: Number(r.parent_version) };
        found.push({ id: r.id, name: r.name, version: Number(r.version), parent, createdAt: r.created_at });
        if (found.length === o.limit) return found;
      }
      if (rows.length < page) return found;
      after = rows[rows.length - 1].id;
    }
  }

  /**
   * The campaign's forks in the order of the story: by the version they branch at, then id (DESIGN §10;
   * ix_campaigns_parent). A deleted parent's forks keep naming it.
   */
  async children(campaignId: string): Promise<CampaignChild[]> {
    const text = 'SELECT "id", "parent_version" FROM "campaigns" WHERE "parent_id" = ? ORDER BY "parent_version", "id"';
    const { rows } = await this.db.read((m) =>
      sql<{ id: string; parent_version: number | string }>(m, text, [campaignId]),
    );
    return rows.map((r) => ({ id: r.id, atVersion: Number(r.parent_version) }));
  }

  /** Every campaign's game version (compared with memory's checkpoints: which campaigns are behind). */
  async versions(): Promise<Map<string, number>> {
    const { rows } = await this.db.read((m) =>
      sql<{ id: string; version: number | string }>(m, 'SELECT "id", "version" FROM "campaigns"'),
    );
    return new Map(rows.map((r) => [r.id, Number(r.version)]));
  }

  /**
   * PostgreSQL: takes the campaign row (where game writers queue) before memory events get their
   * positions, so a campaign's events commit in position order and the event stream can resume from
   * one event id (docs/stream.md). SQLite has one writer, so the order holds already.
   * §10: the campaign's timeline as this transaction sees it, null when the campaign is gone — the memory
   * worker's fence against a rewind or a delete (on PostgreSQL they take the same row first).
   */
  async lockForAppend(m: EntityManager, campaignId: string): Promise<{ timeline: number } | null> {
    const lock = this.db.dialect === 'postgres' ? ' FOR UPDATE' : '';
    const text = `SELECT "timeline" FROM "campaigns" WHERE "id" = ?${lock}`;
    const row = (await sql<{ timeline: number | string }>(m, text, [campaignId])).rows[0];
    return row ? { timeline: Number(row.timeline) } : null;
  }
}
