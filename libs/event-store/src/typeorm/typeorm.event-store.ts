import { EntityManager } from 'typeorm';
import { EventStore, NewEvent, ReadOptions, StoredEvent, StreamCopy, Tx } from '../event-store.port';
import { WrongExpectedVersionError } from '../event-store.port';
import { Database, insertRows, isUniqueViolation, sql, tableColumns } from '@app/database';
import { EventRecord } from './event.entity';
import { inTimedSlices } from '@app/common';

/**
 * Event positions of the first statement of a stream copy (a fork; see copyStreams); the next follow its pace, up to
 * COPY_SLICE_MAX: a range of positions holds other streams' events too, so a cheap slice says little of the next.
 */
const COPY_SLICE_POSITIONS = 250;
const COPY_SLICE_MAX = 1_000;

const INSERT_CHUNK = 500;
/** Events of an append's first insert; the next ones follow its pace (inTimedSlices). */
const APPEND_SLICE = 100;

/** The events table (DESIGN §1): global position, UNIQUE(stream_id, stream_version). */
export class TypeOrmEventStore implements EventStore {
  constructor(private readonly db: Database) {}

  async append(
    streamId: string,
    expectedVersion: number,
    events: NewEvent[],
    recordedAt: string,
    tx?: Tx,
  ): Promise<StoredEvent[]> {
    if (events.length === 0) return [];
    const run = (m: EntityManager) => this.appendIn(m, streamId, expectedVersion, events, recordedAt);
    return tx ? run(tx as EntityManager) : this.db.transaction(run);
  }

  private async appendIn(
    m: EntityManager,
    streamId: string,
    expected: number,
    events: NewEvent[],
    recordedAt: string,
  ): Promise<StoredEvent[]> {
    const actual = await this.streamVersion(streamId, m);
    if (actual !== expected) throw new WrongExpectedVersionError(streamId, expected, actual);
    // The events of one command share their metadata object: serialized (and parsed back, below) once.
    const metadataText = new Map<object | undefined, string>();
    const metadataOf = (e: NewEvent) => {
      let text = metadataText.get(e.metadata);
      if (text === undefined) metadataText.set(e.metadata, (text = JSON.stringify(e.metadata ?? {})));
      return text;
    };
    const rowOf = (e: NewEvent, version: number) => ({
      streamId,
      version,
      type: e.type,
      data: JSON.stringify(e.data),
      metadata: metadataOf(e),
      recordedAt: e.recordedAt ?? recordedAt,
      triggerVersion: e.triggerVersion ?? null,
    });
    const parsedMetadata = new Map<string, StoredEvent['metadata']>();
    const metadataFrom = (text: string) => {
      let parsed = parsedMetadata.get(text);
      if (parsed === undefined) parsedMetadata.set(text, (parsed = JSON.parse(text) as StoredEvent['metadata']));
      return parsed;
    };
    const stored: StoredEvent[] = [];
    try {
      // §13: a large batch (a 500-message post) in timed slices, the loop given back between them; one event: one go.
      await inTimedSlices(events.length, { first: APPEND_SLICE, max: INSERT_CHUNK }, async (lo, hi) => {
        const chunk = events.slice(lo, hi).map((e, i) => rowOf(e, expected + lo + i + 1));
        // Positions come back from the insert itself: no read-back of what we just wrote.
        const { rows: ids } = await insertRows(m, EventRecord, chunk, { returning: '"position", "stream_version"' });
        const position = new Map(ids.map((r) => [Number(r.stream_version), Number(r.position)]));
        // Parsed back from the stored text, so callers see exactly what a later read would return.
        for (const r of chunk)
          stored.push({
            position: position.get(r.version)!,
            streamId,
            version: r.version,
            type: r.type,
            data: JSON.parse(r.data),
            metadata: metadataFrom(r.metadata),
            recordedAt: r.recordedAt,
          });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new WrongExpectedVersionError(streamId, expected, null);
      throw err;
    }
    return stored;
  }

  async readStream(streamId: string, o: ReadOptions = {}, tx?: Tx): Promise<StoredEvent[]> {
    const where = ['"stream_id" = ?', '"stream_version" > ?'];
    const params: unknown[] = [streamId, o.after ?? 0];
    if (o.until !== undefined) {
      where.push('"stream_version" <= ?');
      params.push(o.until);
    }
    if (o.types) {
      if (o.types.length === 0) return [];
      where.push(`"type" IN (${o.types.map(() => '?').join(', ')})`);
      params.push(...o.types);
    }
    return this.select(where, params, '"stream_version"', o.limit, tx as EntityManager | undefined, o.withTrigger);
  }

  async copyStreams(copies: StreamCopy[], tx?: Tx): Promise<number> {
    if (copies.length === 0) return 0;
    const run = async (m: EntityManager) => {
      // Every column but the position (the copy gets new ones, in the source order): a column added to the
      // entity (e.g. the memory events' trigger version) is copied too.
      const columns = tableColumns(m, 'events')!.filter((c) => c !== 'position' && c !== 'stream_id');
      const rename = copies.map(() => 'WHEN ? THEN ?').join(' ');
      const upTo = (stream: string) => copies.map(() => `(${stream} = ? AND "stream_version" <= ?)`).join(' OR ');
      const pick = upTo('"stream_id"');
      // A slice reads its range of positions and nothing else: `"stream_id" || ''` keeps the planner off the
      // (stream_id, stream_version) index, which it chose for the OR of streams (EXPLAIN QUERY PLAN: MULTI-INDEX OR),
      // and which made every slice walk each stream from its first version — a fork of 1M events went quadratic.
      const inSlice = upTo(`("stream_id" || '')`);
      const list = columns.map((c) => `"${c}"`).join(', ');
      const text =
        `INSERT INTO "events" ("stream_id", ${list}) SELECT CASE "stream_id" ${rename} END, ${list} ` +
        `FROM "events" WHERE (${inSlice}) AND "position" BETWEEN ? AND ? ORDER BY "position"`;
      const picked = copies.flatMap((c) => [c.from, c.until]);
      const params = [...copies.flatMap((c) => [c.from, c.to]), ...picked];
      const bounds = await sql<{ lo: number | null; hi: number | null }>(
        m,
        `SELECT MIN("position") AS lo, MAX("position") AS hi FROM "events" WHERE ${pick}`,
        picked,
      );
      const { lo, hi } = bounds.rows[0] ?? { lo: null, hi: null };
      if (lo === null || hi === null) return 0;
      // §13: in timed slices of positions, in source order, giving the event loop back between them (one statement
      // over a 5,000-message campaign held it ≈ 100 ms).
      let changes = 0;
      const first = Number(lo);
      const slices = { first: COPY_SLICE_POSITIONS, max: COPY_SLICE_MAX };
      await inTimedSlices(Number(hi) - first + 1, slices, async (a, b) => {
        changes += (await sql(m, text, [...params, first + a, first + b - 1])).changes;
      });
      return changes;
    };
    return tx ? run(tx as EntityManager) : this.db.transaction(run);
  }

  async truncateStream(streamId: string, after: number, tx?: Tx): Promise<number> {
    const run = async (m: EntityManager) =>
      (await sql(m, 'DELETE FROM "events" WHERE "stream_id" = ? AND "stream_version" > ?', [streamId, after])).changes;
    return tx ? run(tx as EntityManager) : this.db.transaction(run);
  }

  async deleteStream(streamId: string, tx?: Tx): Promise<number> {
    return this.truncateStream(streamId, 0, tx);
  }

  async readAll(o: ReadOptions = {}, tx?: Tx): Promise<StoredEvent[]> {
    const where = ['"position" > ?'];
    const params: unknown[] = [o.after ?? 0];
    if (o.until !== undefined) {
      where.push('"position" <= ?');
      params.push(o.until);
    }
    return this.select(where, params, '"position"', o.limit, tx as EntityManager | undefined);
  }

  /** Plain SQL: the memory worker reads a campaign's new events once per group of writes. */
  private select(
    where: string[],
    params: unknown[],
    order: string,
    limit: number | undefined,
    tx?: EntityManager,
    withTrigger = false,
  ): Promise<StoredEvent[]> {
    const text =
      `SELECT ${COLUMNS}${withTrigger ? ', "trigger_version"' : ''} FROM "events" ` +
      `WHERE ${where.join(' AND ')} ORDER BY ${order}${limit === undefined ? '' : ' LIMIT ?'}`;
    const q = async (m: EntityManager) =>
      (await sql<EventRow>(m, text, limit === undefined ? params : [...params, limit])).rows.map(toStored);
    return tx ? q(tx) : this.db.read(q);
  }

  async streamVersion(streamId: string, tx?: Tx): Promise<number> {
    const q = async (m: EntityManager) => {
      const { rows } = await sql<{ v: number | string | null }>(
        m,
        'SELECT MAX("stream_version") AS "v" FROM "events" WHERE "stream_id" = ?',
        [streamId],
      );
      return Number(rows[0]?.v ?? 0);
    };
    return tx ? q(tx as EntityManager) : this.db.read(q);
  }

  async streamVersions(streamIds: string[]): Promise<number[]> {
    if (streamIds.length === 0) return [];
    // One statement: on PostgreSQL one snapshot, so the versions describe one moment.
    const heads = streamIds.map(
      (_, i) => `(SELECT MAX("stream_version") FROM "events" WHERE "stream_id" = ?) AS "v${i}"`,
    );
    const { rows } = await this.db.read((m) =>
      sql<Record<string, number | string | null>>(m, `SELECT ${heads.join(', ')}`, streamIds),
    );
    return streamIds.map((_, i) => Number(rows[0]?.[`v${i}`] ?? 0));
  }

  async versionAtTrigger(streamId: string, triggerVersion: number, tx?: Tx): Promise<number> {
    // ix_events_trigger: the newest trigger ≤ V first, one seek (the trigger order is the stream's order).
    const text =
      'SELECT "stream_version" AS "v" FROM "events" WHERE "stream_id" = ? AND "trigger_version" IS NOT NULL AND ' +
      '"trigger_version" <= ? ORDER BY "trigger_version" DESC, "stream_version" DESC LIMIT 1';
    const q = async (m: EntityManager) =>
      Number((await sql<{ v: number | string }>(m, text, [streamId, triggerVersion])).rows[0]?.v ?? 0);
    return tx ? q(tx as EntityManager) : this.db.read(q);
  }

  async streamVersionAt(streamId: string, position: number): Promise<number> {
    return this.db.read(async (m) => {
      const text = 'SELECT MAX("stream_version") AS "v" FROM "events" WHERE "stream_id" = ? AND "position" <= ?';
      const { rows } = await sql<{ v: number | string | null }>(m, text, [streamId, position]);
      return Number(rows[0]?.v ?? 0);
    });
  }
}

const COLUMNS = '"position", "stream_id", "stream_version", "type", "data", "metadata", "recorded_at"';

interface EventRow {
  position: number | string;
  stream_id: string;
  stream_version: number | string;
  type: string;
  data: string;
  metadata: string;
  recorded_at: string;
  trigger_version?: number | string | null;
}

function toStored(r: EventRow): StoredEvent {
  const stored = {
    position: Number(r.position),
    streamId: r.stream_id,
    version: Number(r.stream_version),
    type: r.type,
    data: JSON.parse(r.data),
    metadata: JSON.parse(r.metadata),
    recordedAt: r.recorded_at,
  };
  if (r.trigger_version !== undefined && r.trigger_version !== null)
    return { ...stored, triggerVersion: Number(r.trigger_version) };
  return stored;
}
