import { TypeOrmEventStore, WrongExpectedVersionError } from '@app/event-store';
import { openTestDatabase, TestDatabase } from '../support/test-database';
import { describePg } from './describe-pg';

const ev = (n: number) => ({ type: 'Thing', data: { n }, metadata: { correlationId: `c${n}` } });

describePg('event store on PostgreSQL', () => {
  let t: TestDatabase;
  let store: TypeOrmEventStore;
  beforeEach(async () => {
    t = await openTestDatabase();
    store = new TypeOrmEventStore(t.db);
  });
  afterEach(async () => t.close());

  it('runs on PostgreSQL, with numbers (not bigint strings) for positions and versions', async () => {
    expect(t.dataSource.options.type).toBe('postgres');
    const stored = await store.append('s-1', 0, [ev(1), ev(2)], '2026-01-01T00:00:00.000Z');
    expect(stored.map((e) => [typeof e.position, e.version])).toEqual([
      ['number', 1],
      ['number', 2],
    ]);
    expect(await store.streamVersion('s-1')).toBe(2);
    expect(await store.streamVersion('nothing')).toBe(0);
    const read = await store.readStream('s-1', { after: 1 });
    expect(read).toEqual([
      expect.objectContaining({ version: 2, type: 'Thing', data: { n: 2 }, metadata: { correlationId: 'c2' } }),
    ]);
  });

  it('rejects a stale expected version and appends nothing', async () => {
    await store.append('s-1', 0, [ev(1)], 'now');
    await expect(store.append('s-1', 0, [ev(2)], 'now')).rejects.toBeInstanceOf(WrongExpectedVersionError);
    expect(await store.streamVersion('s-1')).toBe(1);
  });

  it('lets exactly one of many concurrent appends at the same version win (the unique index decides, not a lock in this process)', async () => {
    const attempts = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => store.append('race', 0, [ev(i), ev(i + 100)], 'now')),
    );
    const won = attempts.filter((a) => a.status === 'fulfilled');
    const lost = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost.every((a) => a.reason instanceof WrongExpectedVersionError)).toBe(true);
    expect((await store.readStream('race')).map((e) => e.version)).toEqual([1, 2]);
  });

  it('orders readAll by global position across streams', async () => {
    await store.append('a', 0, [ev(1)], 'now');
    await store.append('b', 0, [ev(2)], 'now');
    await store.append('a', 1, [ev(3)], 'now');
    const all = await store.readAll();
    expect(all.map((e) => `${e.streamId}@${e.version}`)).toEqual(['a@1', 'b@1', 'a@2']);
    expect(all.map((e) => e.position)).toEqual([...all.map((e) => e.position)].sort((x, y) => x - y));
    expect((await store.readAll({ after: all[0].position, limit: 1 })).map((e) => e.streamId)).toEqual(['b']);
  });
});
