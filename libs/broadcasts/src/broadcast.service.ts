import { Clock, newId } from '@app/common';
import { EventMetadata, EventStore } from '@app/event-store';
import { Database, IdempotencyKey, IdempotencyStore, isUniqueViolation } from '@app/database';
import { parseQuery, SearchIndex } from '@app/search';
import { EntityManager, In } from 'typeorm';
import { BROADCAST_POSTED, broadcastDoc, BroadcastPostedData, broadcastStream } from './broadcast-events';
import { BroadcastRecord, BroadcastVisibility } from './broadcast.entity';

export interface BroadcastView {
  id: string;
  content: string;
  from: string;
  at: string;
  visibility: BroadcastVisibility;
}

export interface BroadcastItem extends BroadcastView {
  kind: 'broadcast';
  ref: string;
  snippet?: string;
  score?: number;
}

export interface BroadcastWriteMeta {
  idempotency?: IdempotencyKey;
  metadata?: EventMetadata;
  /** The posting key's campaign scope (`*` = every campaign, also when authentication is off). */
  keyScope?: string;
}

export interface BroadcastInput {
  content: string;
  from: string;
  visibility?: BroadcastVisibility;
}

/** Searches ask the index for this many times `limit` hits, since hits of other scopes are left out. */
const SCOPED_POOL_FACTOR = 5;
const SCOPED_POOL_MAX = 500;

const view = (r: BroadcastRecord): BroadcastView => ({
  id: r.id,
  content: r.content,
  from: r.from,
  at: r.at,
  visibility: r.visibility,
});

/** Posts broadcasts (event + projection + index in one transaction) and lists or searches them. */
export class BroadcastService {
  constructor(
    private readonly db: Database,
    private readonly store: EventStore,
    private readonly index: SearchIndex,
    private readonly clock: Clock,
    private readonly idempotency = new IdempotencyStore(),
  ) {}

  async post(
    input: BroadcastInput,
    meta: BroadcastWriteMeta = {},
  ): Promise<{ body: BroadcastView; replayed: boolean }> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.db.transaction((m) => this.postIn(m, input, meta));
      } catch (err) {
        // Two requests with one Idempotency-Key raced (PostgreSQL): the retry finds the winner's answer.
        if (!(meta.idempotency && isUniqueViolation(err) && attempt < 3)) throw err;
      }
    }
  }

  /**
   * Newest first without a query; best first with one (DESIGN §7 query language); only those of `keyScope`, and
   * `gm` ones only when `gm` is set (a full key).
   */
  async list(o: { q?: string; limit: number; keyScope?: string; gm?: boolean }): Promise<BroadcastItem[]> {
    const where = { keyScope: o.keyScope ?? '*', ...(o.gm === false ? { visibility: 'public' as const } : {}) };
    if (o.q === undefined) {
      const rows = await this.db.read((m) =>
        m.getRepository(BroadcastRecord).find({ where, order: { seq: 'DESC' }, take: o.limit }),
      );
      return rows.map((r) => ({ kind: 'broadcast', ref: r.id, ...view(r) }));
    }
    const hits = await this.index.search(null, parseQuery(o.q), {
      in: 'messages',
      limit: Math.min(SCOPED_POOL_MAX, o.limit * SCOPED_POOL_FACTOR),
    });
    if (hits.length === 0) return [];
    const ids = hits.map((h) => String(h.ref));
    const rows = await this.db.read((m) => m.getRepository(BroadcastRecord).findBy({ id: In(ids), ...where }));
    const byId = new Map(rows.map((r) => [r.id, r]));
    const items = hits.flatMap((h) => {
      const r = byId.get(String(h.ref));
      return r ? [{ kind: 'broadcast' as const, ref: r.id, ...view(r), snippet: h.snippet, score: h.score }] : [];
    });
    return items.slice(0, o.limit);
  }

  private async postIn(
    m: EntityManager,
    input: BroadcastInput,
    meta: BroadcastWriteMeta,
  ): Promise<{ body: BroadcastView; replayed: boolean }> {
    const idem = meta.idempotency;
    const prior = idem && (await this.idempotency.replay<BroadcastView>(m, idem));
    if (prior !== undefined) return { body: prior, replayed: true };
    const at = this.clock.now().toISOString();
    const keyScope = meta.keyScope ?? '*';
    const visibility = input.visibility ?? 'public';
    const data: BroadcastPostedData = {
      id: newId(),
      from: input.from,
      content: input.content,
      at,
      ...(keyScope === '*' ? {} : { keyScope }),
      ...(input.visibility === 'gm' ? { visibility: 'gm' as const } : {}),
    };
    const metadata = { ...meta.metadata, ...(idem ? { idempotencyKey: idem.key } : {}) };
    const [event] = await this.store.append(
      broadcastStream(data.id),
      0,
      [{ type: BROADCAST_POSTED, data, metadata }],
      at,
      m,
    );
    const doc = broadcastDoc(event);
    await m
      .getRepository(BroadcastRecord)
      .insert({ id: doc.id, seq: doc.seq, from: doc.from, content: doc.content, at: doc.at, keyScope, visibility });
    await this.index.indexBroadcasts(m, [doc]);
    const body: BroadcastView = { id: data.id, content: data.content, from: data.from, at, visibility };
    if (idem) await this.idempotency.record(m, idem, 201, body, at);
    return { body, replayed: false };
  }
}
