import { CampaignLease, CampaignOwnership, LeaseLostError } from '@app/memory';
import { DataSource, EntityManager } from 'typeorm';
import { ReplicaMetrics } from './replica-metrics';

export interface LeaseOptions {
  replicaId: string;
  /** A lease expires this long after its last renewal (LEASE_TTL_MS). */
  ttlMs: number;
}

interface HeldLease extends CampaignLease {
  epoch: number;
  controller: AbortController;
  /** Taken over by the poll, not yet handed to the worker. */
  reserved: boolean;
}

const EXPIRY = `clock_timestamp() + ($3::int * interval '1 millisecond')`;

/**
 * One statement, never waits: takes a lease row that is free, expired or already ours (SKIP LOCKED
 * passes over a row another replica is fencing right now), or creates the row on first use.
 * $1 campaign, $2 replica, $3 ttl ms.
 */
const ACQUIRE = `
WITH claimable AS (
  SELECT campaign_id, owner, expires_at FROM leases
  WHERE campaign_id = $1 AND (owner IS NULL OR owner = $2 OR expires_at <= clock_timestamp())
  FOR UPDATE SKIP LOCKED
), updated AS (
  UPDATE leases l SET owner = $2, epoch = l.epoch + 1, expires_at = ${EXPIRY}, acquired_at = clock_timestamp()
  FROM claimable c WHERE l.campaign_id = c.campaign_id
  RETURNING l.epoch, l.acquired_at, c.owner AS previous_owner, c.expires_at AS previous_expires_at
), inserted AS (
  INSERT INTO leases (campaign_id, owner, epoch, expires_at, acquired_at)
  SELECT $1, $2, 1, ${EXPIRY}, clock_timestamp() WHERE NOT EXISTS (SELECT 1 FROM leases WHERE campaign_id = $1)
  ON CONFLICT (campaign_id) DO NOTHING
  RETURNING epoch, acquired_at, NULL::varchar AS previous_owner, NULL::timestamptz AS previous_expires_at
)
SELECT * FROM updated UNION ALL SELECT * FROM inserted`;

/** Inside the commit transaction: still ours, same epoch, not expired — and renewed. Locks the row until commit. */
const FENCE = `
WITH fenced AS (
  UPDATE leases SET expires_at = ${EXPIRY}
  WHERE campaign_id = $1 AND owner = $2 AND epoch = $4 AND expires_at > clock_timestamp()
  RETURNING campaign_id
) SELECT campaign_id FROM fenced`;

/**
 * Renews every held lease in one statement. A row locked right now (by this replica's own commit,
 * which renews it too) is skipped rather than waited for, so one busy commit never delays the rest;
 * the lease counts as lost only when its row shows another owner or epoch, or it has expired.
 */
const RENEW = `
WITH mine AS (
  SELECT campaign_id FROM leases
  WHERE campaign_id = ANY($1::varchar[]) AND owner = $2 AND expires_at > clock_timestamp()
  FOR UPDATE SKIP LOCKED
), renewed AS (
  UPDATE leases l SET expires_at = ${EXPIRY} FROM mine WHERE l.campaign_id = mine.campaign_id RETURNING l.campaign_id
)
SELECT campaign_id, epoch FROM leases WHERE campaign_id = ANY($1::varchar[]) AND owner = $2 AND expires_at >
  clock_timestamp()`;

const RELEASE = `
WITH released AS (
  UPDATE leases SET owner = NULL, expires_at = clock_timestamp()
  WHERE campaign_id = $1 AND owner = $2 AND epoch = $3
  RETURNING campaign_id
) SELECT campaign_id FROM released`;

/**
 * Campaign ownership through the `leases` table (DESIGN §9): a lease is taken when a worker slot
 * starts on a campaign, renewed every ttl/3 while work runs, fenced in every commit and released
 * when the campaign is caught up. The database clock decides expiry, so replica clocks never matter.
 */
export class PostgresLeaseOwnership implements CampaignOwnership {
  private readonly held = new Map<string, HeldLease>();
  private timer?: NodeJS.Timeout;
  private renewing?: Promise<void>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: LeaseOptions,
    private readonly metrics: ReplicaMetrics,
    private readonly onError: (message: string) => void = () => undefined,
  ) {
    metrics.heldLeases = () => [...this.held.keys()];
  }

  /** Starts renewing held leases every ttl/3. */
  start(): void {
    const every = Math.max(10, Math.floor(this.options.ttlMs / 3));
    this.timer = setInterval(() => {
      this.renewing ??= this.renew()
        .catch((err) => this.onError(`lease renewal failed: ${(err as Error).message}`))
        .finally(() => (this.renewing = undefined));
    }, every);
    this.timer.unref();
  }

  async acquire(campaignId: string): Promise<CampaignLease | null> {
    const reserved = this.held.get(campaignId);
    if (reserved?.reserved) {
      reserved.reserved = false;
      return reserved;
    }
    return this.claim(campaignId, false);
  }

  /**
   * Takes a lease another replica let expire right away, before the worker has a free slot for the
   * campaign: the takeover happens within one poll of the expiry, the work as soon as a slot frees.
   */
  async takeOver(campaignId: string): Promise<boolean> {
    if (this.held.has(campaignId)) return true;
    return (await this.claim(campaignId, true)) !== null;
  }

  private async claim(campaignId: string, reserved: boolean): Promise<HeldLease | null> {
    const rows: Array<{
      epoch: number;
      acquired_at: Date;
      previous_owner: string | null;
      previous_expires_at: Date | null;
    }> = await this.dataSource.query(ACQUIRE, [campaignId, this.options.replicaId, this.options.ttlMs]);
    const row = rows[0];
    if (!row) return null;
    const controller = new AbortController();
    const lease: HeldLease = { campaignId, epoch: Number(row.epoch), controller, signal: controller.signal, reserved };
    this.held.get(campaignId)?.controller.abort();
    this.held.set(campaignId, lease);
    const from = row.previous_owner;
    const takeover =
      from && from !== this.options.replicaId && row.previous_expires_at
        ? {
            campaignId,
            from,
            acquiredAt: new Date(row.acquired_at).toISOString(),
            previousExpiresAt: new Date(row.previous_expires_at).toISOString(),
            afterExpiryMs: new Date(row.acquired_at).getTime() - new Date(row.previous_expires_at).getTime(),
          }
        : undefined;
    this.metrics.acquired(takeover);
    return lease;
  }

  async fence(m: EntityManager, lease: CampaignLease): Promise<void> {
    const held = lease as HeldLease;
    const rows: unknown[] = await m.query(FENCE, [
      held.campaignId,
      this.options.replicaId,
      this.options.ttlMs,
      held.epoch,
    ]);
    if (rows.length === 0) {
      this.lose(held);
      throw new LeaseLostError(held.campaignId);
    }
  }

  async release(lease: CampaignLease): Promise<void> {
    const held = lease as HeldLease;
    if (this.held.get(held.campaignId) === held) this.held.delete(held.campaignId);
    await this.dataSource.query(RELEASE, [held.campaignId, this.options.replicaId, held.epoch]);
  }

  /** Renews every held lease in one statement; a lease not renewed is lost and its work aborted. */
  async renew(): Promise<void> {
    const sent = [...this.held.values()];
    if (sent.length === 0) return;
    const rows: Array<{ campaign_id: string; epoch: number }> = await this.dataSource.query(RENEW, [
      sent.map((l) => l.campaignId),
      this.options.replicaId,
      this.options.ttlMs,
    ]);
    const renewed = new Map(rows.map((r) => [r.campaign_id, Number(r.epoch)]));
    for (const lease of sent) if (renewed.get(lease.campaignId) !== lease.epoch) this.lose(lease);
  }

  /** Stops renewing; releases whatever is still held (shutdown, after the worker stopped). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.renewing;
    for (const lease of [...this.held.values()]) await this.release(lease).catch(() => undefined);
  }

  private lose(lease: HeldLease): void {
    if (this.held.get(lease.campaignId) !== lease) return;
    this.held.delete(lease.campaignId);
    this.metrics.leaseLost();
    lease.controller.abort(new LeaseLostError(lease.campaignId));
  }
}
