import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventStoreContract, EventStoreFixture } from '../event-store.contract';
import { gameStream } from '../event-store.port';
import { createDataSource, Database } from '@app/database';
import { EventRecord } from './event.entity';
import { TypeOrmEventStore } from './typeorm.event-store';

/** A TypeORM store on a fresh SQLite file (WAL), schema from the entity. */
async function sqliteStore(): Promise<EventStoreFixture & { db: Database }> {
  const dir = mkdtempSync(join(tmpdir(), 'lorekeeper-events-'));
  const ds = createDataSource({
    database: { type: 'sqlite', path: join(dir, 'events.db') },
    entities: [EventRecord],
    migrations: [],
    synchronize: true,
  });
  await ds.initialize();
  const db = new Database(ds);
  return {
    db,
    store: new TypeOrmEventStore(db),
    close: async () => {
      await ds.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

eventStoreContract('TypeORM on a SQLite file', sqliteStore);

describe('TypeOrmEventStore in a caller transaction', () => {
  let fixture: Awaited<ReturnType<typeof sqliteStore>>;
  beforeEach(async () => {
    fixture = await sqliteStore();
  });
  afterEach(async () => fixture.close());

  it('an append joins the transaction it is given: a rollback leaves nothing behind', async () => {
    const { db, store } = fixture;
    await expect(
      db.transaction(async (m) => {
        await store.append(gameStream('c1'), 0, [{ type: 'A', data: {} }], '2026-03-01T10:00:00.000Z', m);
        expect(await store.streamVersion(gameStream('c1'), m)).toBe(1);
        throw new Error('projection failed');
      }),
    ).rejects.toThrow('projection failed');
    expect(await store.streamVersion(gameStream('c1'))).toBe(0);
    expect(await store.readAll()).toEqual([]);
  });

  it('events survive closing and reopening the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lorekeeper-events-'));
    const path = join(dir, 'events.db');
    const open = async () => {
      const ds = createDataSource({
        database: { type: 'sqlite', path },
        entities: [EventRecord],
        migrations: [],
        synchronize: true,
      });
      await ds.initialize();
      return ds;
    };
    const first = await open();
    await new TypeOrmEventStore(new Database(first)).append(
      's',
      0,
      [{ type: 'A', data: { x: 1 } }],
      '2026-03-01T10:00:00.000Z',
    );
    await first.destroy();
    const second = await open();
    const again = new TypeOrmEventStore(new Database(second));
    expect((await again.readStream('s')).map((e) => [e.version, e.data])).toEqual([[1, { x: 1 }]]);
    await again.append('s', 1, [{ type: 'B', data: {} }], '2026-03-01T10:00:00.000Z');
    expect(await again.streamVersion('s')).toBe(2);
    await second.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
});
