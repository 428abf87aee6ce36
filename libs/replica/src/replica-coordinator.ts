import type { Client } from 'pg';
import { DataSource } from 'typeorm';

export interface CoordinatorOptions {
  /** Connection string of the dedicated LISTEN connection (the pool's own URL). */
  url: string;
  replicaId: string;
  /** Fallback poll for campaigns behind (LEASE_POLL_MS). */
  pollMs: number;
  /** Campaigns whose memory checkpoint is behind their version (asked of campaign and memory, their tables). */
  behind: () => Promise<string[]>;
}

export interface CoordinatorLogger {
  warn(message: string): void;
}

/**
 * Of the campaigns behind ($2), those whose lease nobody alive holds (free, ours, or expired: a takeover). $1 replica.
 */
const CLAIMABLE = `
SELECT b.id, (l.owner IS NOT NULL AND l.owner <> $1) AS expired FROM unnest($2::varchar[]) AS b(id)
LEFT JOIN leases l ON l.campaign_id = b.id
WHERE l.owner IS NULL OR l.owner = $1 OR l.expires_at <= clock_timestamp()`;

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A timeline change other replicas must hear of (DESIGN §10). */
export type TimelineKind = 'rewound' | 'deleted';

/**
 * Wakes this replica's worker for work appended anywhere (DESIGN §9): LISTEN/NOTIFY on a channel
 * per schema after each append, and a poll every LEASE_POLL_MS for campaigns behind whose lease is
 * free or expired — the fallback that also turns a dead replica's expired leases into a takeover.
 */
export class ReplicaCoordinator {
  private channel = '';
  private readonly timelineListeners: ((campaignId: string, change: TimelineKind) => void)[] = [];
  private listener?: Client;
  private pollTimer?: NodeJS.Timeout;
  private listenTimer?: NodeJS.Timeout;
  private polling?: Promise<void>;
  private stopped = false;
  private readonly observers = new Set<(campaignId: string) => void>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: CoordinatorOptions,
    private readonly wake: (campaignId: string) => void,
    private readonly logger: CoordinatorLogger,
    /** Takes an expired lease of another replica at once (see PostgresLeaseOwnership.takeOver). */
    private readonly takeOver: (campaignId: string) => Promise<boolean> = async () => true,
    /** What a poll calls for a campaign behind (default `wake`): the worker skips the ones it is draining. */
    private readonly nudge: (campaignId: string) => void = wake,
  ) {}

  async start(): Promise<void> {
    const [{ schema }] = await this.dataSource.query('SELECT current_schema() AS schema');
    this.channel = `lorekeeper_appended_${schema}`.slice(0, 63);
    await this.listen().catch((err) => this.retryListen(err));
    this.schedulePoll(0);
  }

  /** Tells the other replicas that a campaign has new events, or (DESIGN §10) was rewound or deleted. */
  async notify(campaignId: string, change?: TimelineKind): Promise<void> {
    if (!this.channel || this.stopped) return;
    const payload = `${campaignId} ${this.options.replicaId}${change ? ` ${change}` : ''}`;
    await this.dataSource.query('SELECT pg_notify($1, $2)', [this.channel, payload]);
  }

  /** Calls `listener` when another replica rewound or deleted a campaign (its caches and claims are stale here). */
  onTimeline(listener: (campaignId: string, change: TimelineKind) => void): void {
    this.timelineListeners.push(listener);
  }

  /** Calls `observer` for every notification, this replica's own included (the event stream's wake-up). */
  observe(observer: (campaignId: string) => void): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.pollTimer);
    clearTimeout(this.listenTimer);
    await this.polling;
    const client = this.listener;
    this.listener = undefined;
    await client?.end().catch(() => undefined);
  }

  /** Runs one poll now (tests, and the timer). */
  async poll(): Promise<void> {
    const behind = await this.options.behind();
    if (behind.length === 0) return;
    const rows: Array<{ id: string; expired: boolean }> = await this.dataSource.query(CLAIMABLE, [
      this.options.replicaId,
      behind,
    ]);
    for (const row of rows) if (!row.expired) this.nudge(row.id);
    // Takeovers at once, side by side: a dead replica's campaigns should not wait on each other.
    await Promise.all(rows.filter((r) => r.expired).map(async (r) => (await this.takeOver(r.id)) && this.wake(r.id)));
  }

  private schedulePoll(delay: number): void {
    if (this.stopped) return;
    this.pollTimer = setTimeout(() => {
      this.polling = this.poll()
        .catch((err) => this.logger.warn(`replica poll failed: ${(err as Error).message}`))
        .finally(() => {
          this.polling = undefined;
          this.schedulePoll(this.options.pollMs);
        });
    }, delay);
    this.pollTimer.unref();
  }

  private async listen(): Promise<void> {
    // pg is loaded only on PostgreSQL: a SQLite boot need not pay for it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only on PostgreSQL (boot time)
    const { Client: PgClient } = require('pg') as typeof import('pg');
    const client = new PgClient({
      connectionString: this.options.url,
      application_name: `lorekeeper-listen-${this.options.replicaId}`.slice(0, 63),
    });
    client.on('notification', (msg) => {
      if (msg.channel !== this.channel || !msg.payload) return;
      // Payload "<campaign> <replica>": this replica already woke its own worker when it appended.
      const [campaignId, from, change] = msg.payload.split(' ');
      if (change && from !== this.options.replicaId)
        for (const listener of this.timelineListeners) listener(campaignId, change as TimelineKind);
      for (const observer of this.observers) observer(campaignId);
      if (from !== this.options.replicaId) this.wake(campaignId);
    });
    client.on('error', (err) => this.retryListen(err));
    client.on('end', () => {
      if (this.listener === client) this.retryListen(new Error('connection ended'));
    });
    await client.connect();
    await client.query(`LISTEN ${quoteIdent(this.channel)}`);
    if (this.stopped) {
      await client.end();
      return;
    }
    this.listener = client;
  }

  /** Lost the LISTEN connection: the poll covers the gap until it is back. */
  private retryListen(err: unknown): void {
    if (this.stopped) return;
    const old = this.listener;
    this.listener = undefined;
    old?.end().catch(() => undefined);
    if (this.listenTimer) return;
    this.logger.warn(`replica LISTEN connection lost (${(err as Error)?.message}); polling until it is back`);
    this.listenTimer = setTimeout(() => {
      this.listenTimer = undefined;
      this.listen().catch((e) => this.retryListen(e));
    }, this.options.pollMs);
    this.listenTimer.unref();
  }
}
