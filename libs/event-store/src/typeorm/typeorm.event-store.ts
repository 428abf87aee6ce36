import { EntityManager } from 'typeorm';
import { EventStore, NewEvent, ReadOptions, StoredEvent, Tx, WrongExpectedVersionError } from '../event-store.port';
import { Database, isUniqueViolation } from './database';
import { EventRecord } from './event.entity';
import { insertRows, sql } from './raw-sql';

const INSERT_CHUNK = 500;

/** The events table (DESIGN §1): global position, UNIQUE(stream_id, stream_version). */
export class TypeOrmEventStore implements EventStore {
  constructor(private readonly db: Database) {}

  async append(streamId: string, expectedVersion: number, events: NewEvent[], recordedAt: string, tx?: Tx): Promise<StoredEvent[]> {
    if (events.length === 0) return [];
    const run = (m: EntityManager) => this.appendIn(m, streamId, expectedVersion, events, recordedAt);
    return tx ? run(tx as EntityManager) : this.db.transaction(run);
  }

  private async appendIn(m: EntityManager, streamId: string, expected: number, events: NewEvent[], recordedAt: string): Promise<StoredEvent[]> {
    const actual = await this.streamVersion(streamId, m);
    if (actual !== expected) throw new WrongExpectedVersionError(streamId, expected, actual);
    const rows = events.map((e, i) => ({
      streamId,
      version: expected + i + 1,
      type: e.type,
      data: JSON.stringify(e.data),
      metadata: JSON.stringify(e.metadata ?? {}),
      recordedAt,
    }));
    const stored: StoredEvent[] = [];
    try {
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        const chunk = rows.slice(i, i + INSERT_CHUNK);
        // Positions come back from the insert itself: no read-back of what we just wrote.
        const { rows: ids } = await insertRows(m, EventRecord, chunk, { returning: '"position", "stream_version"' });
        const position = new Map(ids.map((r) => [Number(r.stream_version), Number(r.position)]));
        // Parsed back from the stored text, so callers see exactly what a later read would return.
        for (const r of chunk) stored.push({ position: position.get(r.version)!, streamId, version: r.version, type: r.type, data: JSON.parse(r.data), metadata: JSON.parse(r.metadata), recordedAt });
      }
    } catch (err) {
      if (isUniqueViolation(err)) throw new WrongExpectedVersionError(streamId, expected, null);
      throw err;
    }
    return stored;
  }

  async readStream(streamId: string, o: ReadOptions = {}): Promise<StoredEvent[]> {
    return this.db.read(async (m) => {
      const qb = m
        .getRepository(EventRecord)
        .createQueryBuilder('e')
        .where('e.streamId = :streamId AND e.version > :after', { streamId, after: o.after ?? 0 })
        .orderBy('e.version', 'ASC');
      if (o.until !== undefined) qb.andWhere('e.version <= :until', { until: o.until });
      if (o.limit !== undefined) qb.limit(o.limit);
      return (await qb.getMany()).map(toStored);
    });
  }

  async readAll(o: ReadOptions = {}): Promise<StoredEvent[]> {
    return this.db.read(async (m) => {
      const qb = m
        .getRepository(EventRecord)
        .createQueryBuilder('e')
        .where('e.position > :after', { after: o.after ?? 0 })
        .orderBy('e.position', 'ASC');
      if (o.until !== undefined) qb.andWhere('e.position <= :until', { until: o.until });
      if (o.limit !== undefined) qb.limit(o.limit);
      return (await qb.getMany()).map(toStored);
    });
  }

  async streamVersion(streamId: string, tx?: Tx): Promise<number> {
    const q = async (m: EntityManager) => {
      const { rows } = await sql<{ v: number | string | null }>(m, 'SELECT MAX("stream_version") AS "v" FROM "events" WHERE "stream_id" = ?', [streamId]);
      return Number(rows[0]?.v ?? 0);
    };
    return tx ? q(tx as EntityManager) : this.db.read(q);
  }
}

function toStored(r: EventRecord): StoredEvent {
  return {
    position: Number(r.position),
    streamId: r.streamId,
    version: Number(r.version),
    type: r.type,
    data: JSON.parse(r.data),
    metadata: JSON.parse(r.metadata),
    recordedAt: r.recordedAt,
  };
}
