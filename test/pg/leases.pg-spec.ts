import { CampaignLease, CheckpointMove, CheckpointStore, LeaseLostError } from '@app/memory';
import { PostgresLeaseOwnership, ReplicaMetrics } from '@app/replica';
import { openTestDatabase, TestDatabase } from '../support/test-database';
import { describePg } from './describe-pg';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describePg('campaign leases on PostgreSQL', () => {
  let t: TestDatabase;
  const replicas: PostgresLeaseOwnership[] = [];
  const replica = (id: string, ttlMs = 10_000) => {
    const metrics = new ReplicaMetrics(id, 'postgres-leases');
    const ownership = new PostgresLeaseOwnership(t.dataSource, { replicaId: id, ttlMs }, metrics);
    replicas.push(ownership);
    return { ownership, metrics };
  };
  beforeEach(async () => {
    t = await openTestDatabase();
  });
  afterEach(async () => {
    for (const r of replicas.splice(0)) await r.stop();
    await t.close();
  });

  it('gives a campaign to one replica at a time; a released lease is free for the next', async () => {
    const a = replica('a');
    const b = replica('b');
    const lease = await a.ownership.acquire('c1');
    expect(lease).not.toBeNull();
    expect(await b.ownership.acquire('c1')).toBeNull();
    expect(await b.ownership.acquire('c2')).not.toBeNull();
    expect(a.metrics.heldLeases()).toEqual(['c1']);
    await a.ownership.release(lease!);
    expect(a.metrics.heldLeases()).toEqual([]);
    expect(await b.ownership.acquire('c1')).not.toBeNull();
    expect(b.metrics.takeovers).toBe(0);
  });

  it('lets another replica take over an expired lease, and fences the old holder: its commit rolls back', async () => {
    const a = replica('a', 300);
    const b = replica('b', 300);
    const old = (await a.ownership.acquire('c1'))!;
    expect(await b.ownership.acquire('c1')).toBeNull();
    await sleep(400); // a never renews (its renewal timer is not started): the lease expires
    const taken = await b.ownership.acquire('c1');
    expect(taken).not.toBeNull();
    expect(b.metrics.takeovers).toBe(1);
    expect(b.metrics.recentTakeovers[0]).toEqual(expect.objectContaining({ campaignId: 'c1', from: 'a' }));

    await t.dataSource.query(
      `INSERT INTO memory_checkpoints (campaign_id, processed_version, memory_version) VALUES ('c1', 0, 0)`,
    );
    const commit = t.db.transaction(async (m) => {
      await m.query(`UPDATE memory_checkpoints SET processed_version = 5 WHERE campaign_id = 'c1'`);
      await a.ownership.fence(m, old);
    });
    await expect(commit).rejects.toBeInstanceOf(LeaseLostError);
    expect(old.signal.aborted).toBe(true);
    const [row] = await t.dataSource.query(`SELECT processed_version FROM memory_checkpoints WHERE campaign_id = 'c1'`);
    expect(row.processed_version).toBe(0);
    await expect(t.db.transaction((m) => b.ownership.fence(m, taken!))).resolves.toBeUndefined();
  });

  it('moves the worker checkpoint fenced in one transaction: only from where it was, never after a takeover', async () => {
    const a = replica('a', 300);
    const b = replica('b', 300);
    const progress = async () =>
      (
        await t.dataSource.query(
          `SELECT processed_version, memory_version FROM memory_checkpoints WHERE campaign_id = 'c1'`,
        )
      )[0];
    // What the worker commits last: the fence on the lease, then memory's own checkpoint move.
    const move = (ownership: PostgresLeaseOwnership, lease: CampaignLease, to: CheckpointMove) =>
      t.db.transaction(async (m) => {
        await ownership.fence(m, lease);
        return CheckpointStore.move(m, 'c1', to);
      });
    const old = (await a.ownership.acquire('c1'))!;
    // The row exists from the campaign's creation on (CheckpointProjection); a move never creates it.
    expect(await move(a.ownership, old, { from: 0, to: 3, timeline: 1 })).toBe(false);
    await t.db.transaction((m) => CheckpointStore.create(m, 'c1'));
    expect(await move(a.ownership, old, { from: 0, to: 3, timeline: 1 })).toBe(true);
    expect(await move(a.ownership, old, { from: 0, to: 4, timeline: 1 })).toBe(false);
    expect(await move(a.ownership, old, { from: 3, to: 5, memoryVersion: 2, timeline: 2 })).toBe(false);
    expect(await move(a.ownership, old, { from: 3, to: 5, memoryVersion: 2, timeline: 1 })).toBe(true);
    expect(await progress()).toEqual({ processed_version: 5, memory_version: 2 });

    await sleep(400); // a stops renewing; b takes over
    const taken = (await b.ownership.acquire('c1'))!;
    const commit = t.db.transaction(async (m) => {
      await m.query(`UPDATE memory_checkpoints SET memory_version = 7 WHERE campaign_id = 'c1'`);
      await a.ownership.fence(m, old);
      await CheckpointStore.move(m, 'c1', { from: 5, to: 9, memoryVersion: 3, timeline: 1 });
    });
    await expect(commit).rejects.toBeInstanceOf(LeaseLostError);
    await expect(move(a.ownership, old, { from: 5, to: 9, timeline: 1 })).rejects.toBeInstanceOf(LeaseLostError);
    expect(old.signal.aborted).toBe(true);
    expect(await progress()).toEqual({ processed_version: 5, memory_version: 2 });
    expect(await move(b.ownership, taken, { from: 5, to: 9, timeline: 1 })).toBe(true);
    expect((await progress()).processed_version).toBe(9);
  });

  it('keeps a renewed lease past its TTL, and aborts work whose lease was taken', async () => {
    const a = replica('a', 300);
    const b = replica('b', 300);
    a.ownership.start();
    const lease = (await a.ownership.acquire('c1'))!;
    await sleep(800);
    expect(await b.ownership.acquire('c1')).toBeNull();
    expect(lease.signal.aborted).toBe(false);

    // Simulate a takeover behind a's back (as after a long pause): the next renewal notices.
    await t.dataSource.query(`UPDATE leases SET owner = 'b', epoch = epoch + 1 WHERE campaign_id = 'c1'`);
    await a.ownership.renew();
    expect(lease.signal.aborted).toBe(true);
    expect(a.metrics.lost).toBe(1);
    expect(a.metrics.heldLeases()).toEqual([]);
  });

  it('never waits on a lease row another replica is fencing (SKIP LOCKED)', async () => {
    const a = replica('a', 300);
    const b = replica('b', 300);
    const lease = (await a.ownership.acquire('c1'))!;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const commit = t.db.transaction(async (m) => {
      await a.ownership.fence(m, lease);
      await held;
    });
    await sleep(400); // expired by the clock, but its row is locked by a's commit in progress
    // Were b to wait for the row lock, this would never return: a's commit only ends after it.
    expect(await b.ownership.acquire('c1')).toBeNull();
    release();
    await commit;
  });
});
