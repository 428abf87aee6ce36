import { EventStore, NewEvent, WrongExpectedVersionError } from './event-store.port';

/** A store under test and how to dispose of it. */
export interface EventStoreFixture {
  store: EventStore;
  close(): Promise<void>;
}

const T1 = '2026-03-01T10:00:00.000Z';
const T2 = '2026-03-01T11:00:00.000Z';

const ev = (type: string, n: number, metadata?: NewEvent['metadata']): NewEvent => ({
  type,
  data: { n, nested: { list: [n, 'ü€'] } },
  ...(metadata ? { metadata } : {}),
});
const batch = (type: string, from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ev(type, from + i));

/**
 * The EventStore contract (DESIGN §1): every adapter and the in-memory fake must pass it.
 * `create` returns a fresh, empty store; PostgreSQL runs reuse this with their own factory.
 */
export function eventStoreContract(name: string, create: () => Promise<EventStoreFixture>): void {
  describe(`EventStore contract: ${name}`, () => {
    let fixture: EventStoreFixture;
    let store: EventStore;

    beforeEach(async () => {
      fixture = await create();
      store = fixture.store;
    });
    afterEach(async () => fixture.close());

    it('appends to a new stream at expected version 0, numbering from 1', async () => {
      const stored = await store.append(
        's-a',
        0,
        [ev('A', 1, { correlationId: 'c-1', idempotencyKey: 'k' }), ev('B', 2)],
        T1,
      );
      expect(stored.map((e) => [e.streamId, e.version, e.type, e.recordedAt])).toEqual([
        ['s-a', 1, 'A', T1],
        ['s-a', 2, 'B', T1],
      ]);
      expect(stored[0].data).toEqual({ n: 1, nested: { list: [1, 'ü€'] } });
      expect(stored[0].metadata).toEqual({ correlationId: 'c-1', idempotencyKey: 'k' });
      expect(stored[1].metadata).toEqual({});
      expect(stored[1].position).toBeGreaterThan(stored[0].position);
    });

    it('continues at the current version, keeping versions gapless 1..n', async () => {
      await store.append('s-a', 0, batch('A', 1, 2), T1);
      await store.append('s-a', 2, batch('A', 3, 1), T1);
      await store.append('s-a', 3, batch('A', 4, 3), T2);
      const all = await store.readStream('s-a');
      expect(all.map((e) => e.version)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(all.map((e) => e.data.n)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(all.map((e) => e.recordedAt)).toEqual([T1, T1, T1, T2, T2, T2]);
    });

    it('throws WrongExpectedVersionError on a stale or future version, appending nothing', async () => {
      await store.append('s-a', 0, batch('A', 1, 2), T1);
      for (const expected of [0, 1, 3, 7]) {
        await expect(store.append('s-a', expected, [ev('X', 99)], T1)).rejects.toBeInstanceOf(
          WrongExpectedVersionError,
        );
      }
      await expect(store.append('s-new', 1, [ev('X', 99)], T1)).rejects.toBeInstanceOf(WrongExpectedVersionError);
      expect((await store.readStream('s-a')).map((e) => e.type)).toEqual(['A', 'A']);
      expect(await store.streamVersion('s-new')).toBe(0);
      expect(await store.readAll()).toHaveLength(2);
    });

    it('gives global positions strictly increasing across interleaved streams', async () => {
      await store.append('s-a', 0, batch('A', 1, 2), T1);
      await store.append('s-b', 0, batch('B', 1, 1), T1);
      await store.append('s-a', 2, batch('A', 3, 1), T1);
      await store.append('s-b', 1, batch('B', 2, 2), T1);
      const all = await store.readAll();
      expect(all.map((e) => `${e.streamId}@${e.version}`)).toEqual([
        's-a@1',
        's-a@2',
        's-b@1',
        's-a@3',
        's-b@2',
        's-b@3',
      ]);
      for (let i = 1; i < all.length; i++) expect(all[i].position).toBeGreaterThan(all[i - 1].position);
    });

    it('keeps two streams independent: versions, reads and version checks', async () => {
      await store.append('s-a', 0, batch('A', 1, 3), T1);
      await store.append('s-b', 0, batch('B', 1, 1), T1);
      expect(await store.streamVersion('s-a')).toBe(3);
      expect(await store.streamVersion('s-b')).toBe(1);
      expect((await store.readStream('s-b')).map((e) => e.type)).toEqual(['B']);
      await expect(store.append('s-b', 3, [ev('B', 9)], T1)).rejects.toBeInstanceOf(WrongExpectedVersionError);
      await store.append('s-b', 1, [ev('B', 2)], T1);
      expect(await store.streamVersion('s-a')).toBe(3);
    });

    it("streamVersionAt gives a stream's version as of a global position", async () => {
      await store.append('s-a', 0, batch('A', 1, 2), T1);
      const [b1] = await store.append('s-b', 0, batch('B', 1, 1), T1);
      await store.append('s-a', 2, batch('A', 3, 1), T1);
      expect(await store.streamVersionAt('s-a', b1.position)).toBe(2);
      expect(await store.streamVersionAt('s-a', b1.position - 1)).toBe(2);
      expect(await store.streamVersionAt('s-a', Number.MAX_SAFE_INTEGER)).toBe(3);
      expect(await store.streamVersionAt('s-b', b1.position - 1)).toBe(0);
      expect(await store.streamVersionAt('nope', b1.position)).toBe(0);
    });

    it('versionAtTrigger gives the prefix of a stream appended with triggers up to a version', async () => {
      const withTrigger = (n: number, triggerVersion?: number): NewEvent => ({ ...ev('M', n), triggerVersion });
      await store.append('m', 0, [withTrigger(1, 3), withTrigger(2, 3), withTrigger(3, 7)], T1);
      await store.append('g', 0, [ev('G', 1)], T1);
      await store.append('m', 3, [withTrigger(4, 9)], T2);
      const at = (v: number) => store.versionAtTrigger('m', v);
      expect(await Promise.all([2, 3, 6, 7, 8, 9, 50].map(at))).toEqual([0, 2, 2, 3, 3, 4, 4]);
      expect(await store.versionAtTrigger('g', 50)).toBe(0);
      expect(await store.versionAtTrigger('unknown', 50)).toBe(0);
    });

    it('readStream honours after (exclusive), until (inclusive) and limit, oldest first', async () => {
      await store.append('s-a', 0, batch('A', 1, 10), T1);
      await store.append('s-b', 0, batch('B', 1, 3), T1);
      const versions = async (o: Parameters<EventStore['readStream']>[1]) =>
        (await store.readStream('s-a', o)).map((e) => e.version);
      expect(await versions(undefined)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(await versions({ after: 7 })).toEqual([8, 9, 10]);
      expect(await versions({ until: 3 })).toEqual([1, 2, 3]);
      expect(await versions({ after: 2, until: 5 })).toEqual([3, 4, 5]);
      expect(await versions({ after: 2, limit: 2 })).toEqual([3, 4]);
      expect(await versions({ after: 2, until: 4, limit: 10 })).toEqual([3, 4]);
      expect(await versions({ after: 10 })).toEqual([]);
      expect(await store.readStream('nope')).toEqual([]);
    });

    it('readAll honours after, until and limit on global positions', async () => {
      await store.append('s-a', 0, batch('A', 1, 3), T1);
      await store.append('s-b', 0, batch('B', 1, 3), T1);
      const all = await store.readAll();
      const p = all.map((e) => e.position);
      expect(all).toHaveLength(6);
      expect((await store.readAll({ after: p[1] })).map((e) => e.position)).toEqual(p.slice(2));
      expect((await store.readAll({ after: p[1], limit: 2 })).map((e) => e.position)).toEqual(p.slice(2, 4));
      expect((await store.readAll({ after: p[0], until: p[3] })).map((e) => e.position)).toEqual(p.slice(1, 4));
      expect(await store.readAll({ after: p[5] })).toEqual([]);
    });

    it('reads back exactly what was appended (types, data, metadata, recordedAt)', async () => {
      const appended = await store.append('s-a', 0, [ev('A', 1, { correlationId: 'x', causationId: 'y' })], T2);
      expect(await store.readStream('s-a')).toEqual(appended);
      expect(await store.readAll()).toEqual(appended);
    });

    it('hands out copies: changing a returned event changes nothing stored', async () => {
      const [first] = await store.append('s-a', 0, [ev('A', 1)], T1);
      first.data.n = 666;
      (first.data.nested as { list: unknown[] }).list.push('x');
      const [read] = await store.readStream('s-a');
      read.metadata.correlationId = 'changed';
      expect(await store.readStream('s-a')).toEqual([
        expect.objectContaining({ data: { n: 1, nested: { list: [1, 'ü€'] } }, metadata: {} }),
      ]);
    });

    it("streamVersions gives several streams' versions in the order asked, 0 for an unknown one", async () => {
      await store.append('s-a', 0, batch('A', 1, 2), T1);
      await store.append('s-b', 0, batch('B', 1, 1), T1);
      expect(await store.streamVersions(['s-b', 'nope', 's-a'])).toEqual([1, 0, 2]);
      expect(await store.streamVersions([])).toEqual([]);
    });

    it('streamVersion is 0 for an unknown stream and n after n events', async () => {
      expect(await store.streamVersion('s-a')).toBe(0);
      await store.append('s-a', 0, batch('A', 1, 4), T1);
      expect(await store.streamVersion('s-a')).toBe(4);
    });

    it('concurrent appends at the same expected version: exactly one wins, the stream stays gapless', async () => {
      await store.append('s-a', 0, [ev('A', 0)], T1);
      const racers = Array.from({ length: 8 }, (_, i) => store.append('s-a', 1, batch(`R${i}`, 1, 2), T1));
      const results = await Promise.allSettled(racers);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(7);
      for (const r of lost) expect(r.reason).toBeInstanceOf(WrongExpectedVersionError);
      const stream = await store.readStream('s-a');
      expect(stream.map((e) => e.version)).toEqual([1, 2, 3]);
      expect(new Set(stream.slice(1).map((e) => e.type)).size).toBe(1);
    });

    it('concurrent appends to different streams all succeed', async () => {
      await Promise.all(Array.from({ length: 6 }, (_, i) => store.append(`s-${i}`, 0, batch('A', 1, 2), T1)));
      const all = await store.readAll();
      expect(all).toHaveLength(12);
      expect(new Set(all.map((e) => e.position)).size).toBe(12);
    });
    it('copyStreams copies prefixes under new ids, keeping their interleaving, data and recordedAt', async () => {
      await store.append('g-a', 0, batch('G', 1, 2), T1);
      await store.append('m-a', 0, [{ ...ev('M', 1), triggerVersion: 2 }], T2);
      await store.append('g-a', 2, batch('G', 3, 2), T2);
      await store.append('m-a', 1, [{ ...ev('M', 2), triggerVersion: 4 }], T2);
      await store.append('other', 0, batch('O', 1, 1), T1);
      const n = await store.copyStreams([
        { from: 'g-a', to: 'g-b', until: 3 },
        { from: 'm-a', to: 'm-b', until: 1 },
      ]);
      expect(n).toBe(4);
      const copied = (await store.readAll()).filter((e) => e.streamId.endsWith('-b'));
      expect(copied.map((e) => [e.streamId, e.version, e.data.n, e.recordedAt])).toEqual([
        ['g-b', 1, 1, T1],
        ['g-b', 2, 2, T1],
        ['m-b', 1, 1, T2],
        ['g-b', 3, 3, T2],
      ]);
      expect(await store.streamVersions(['g-a', 'm-a', 'g-b', 'm-b'])).toEqual([4, 2, 3, 1]);
      // Trigger versions come along: the copy's memory prefix is found the same way.
      expect(await store.versionAtTrigger('m-b', 3)).toBe(1);
      expect(await store.versionAtTrigger('m-b', 9)).toBe(1);
      // A copy is a stream like any other: it continues at its own version.
      await store.append('g-b', 3, [ev('G', 9)], T2);
      expect((await store.readStream('g-b')).map((e) => e.data.n)).toEqual([1, 2, 3, 9]);
      expect((await store.readStream('g-a')).map((e) => e.data.n)).toEqual([1, 2, 3, 4]);
    });

    it('truncateStream removes the versions after a bound; the stream then continues from there', async () => {
      await store.append('s-a', 0, batch('A', 1, 5), T1);
      await store.append('s-b', 0, batch('B', 1, 2), T1);
      expect(await store.truncateStream('s-a', 2)).toBe(3);
      expect(await store.streamVersion('s-a')).toBe(2);
      await expect(store.append('s-a', 5, [ev('A', 6)], T1)).rejects.toBeInstanceOf(WrongExpectedVersionError);
      const [again] = await store.append('s-a', 2, [ev('A', 7)], T2);
      expect(again.version).toBe(3);
      const positions = (await store.readAll()).map((e) => e.position);
      expect(new Set(positions).size).toBe(positions.length);
      expect((await store.readStream('s-a')).map((e) => e.data.n)).toEqual([1, 2, 7]);
      expect(await store.streamVersion('s-b')).toBe(2);
    });

    it('deleteStream removes every event of one stream only', async () => {
      await store.append('s-a', 0, batch('A', 1, 3), T1);
      await store.append('s-b', 0, batch('B', 1, 2), T1);
      expect(await store.deleteStream('s-a')).toBe(3);
      expect(await store.deleteStream('s-a')).toBe(0);
      expect(await store.streamVersions(['s-a', 's-b'])).toEqual([0, 2]);
      expect((await store.readAll()).map((e) => e.streamId)).toEqual(['s-b', 's-b']);
    });

    it("readStream withTrigger returns each event's trigger version (DESIGN §15 export), and only then", async () => {
      await store.append('m-a', 0, [{ ...ev('M', 1), triggerVersion: 4 }, ev('N', 2)], T1);
      const read = await store.readStream('m-a', { withTrigger: true });
      expect(read.map((e) => e.triggerVersion)).toEqual([4, undefined]);
      expect((await store.readStream('m-a')).some((e) => 'triggerVersion' in e)).toBe(false);
    });

    it('an event appended with its own recordedAt keeps it (an import, DESIGN §15)', async () => {
      const stored = await store.append('t-a', 0, [{ ...ev('A', 1), recordedAt: T2 }, ev('A', 2)], T1);
      expect(stored.map((e) => e.recordedAt)).toEqual([T2, T1]);
      expect((await store.readStream('t-a')).map((e) => e.recordedAt)).toEqual([T2, T1]);
    });

    it('readStream with types returns only those types, versions unchanged', async () => {
      await store.append('s-a', 0, [ev('A', 1), ev('B', 2), ev('A', 3)], T1);
      expect((await store.readStream('s-a', { types: ['A'], until: 3 })).map((e) => e.version)).toEqual([1, 3]);
      expect(await store.readStream('s-a', { types: [] })).toEqual([]);
    });
  });
}
