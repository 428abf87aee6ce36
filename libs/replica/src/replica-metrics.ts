/** A takeover: a lease acquired after another replica let it expire without releasing it. */
export interface TakeoverRecord {
  campaignId: string;
  from: string;
  /** Database clock, ISO. */
  acquiredAt: string;
  previousExpiresAt: string;
  /** How long after the old lease expired this replica took it (the poll's share of a failover). */
  afterExpiryMs: number;
}

export interface WorkerLag {
  /** Campaigns whose processedVersion is behind their version. */
  campaigns: number;
  /** Sum of (version − processedVersion) over them. */
  events: number;
}

const RECENT_TAKEOVERS = 50;

/** This replica's ownership counters, for /health/ready and /metrics (DESIGN §9). */
export class ReplicaMetrics {
  acquisitions = 0;
  takeovers = 0;
  lost = 0;
  readonly recentTakeovers: TakeoverRecord[] = [];
  /** Campaigns whose lease this replica holds now; set by the ownership adapter. */
  heldLeases: () => string[] = () => [];

  constructor(
    readonly replicaId: string,
    readonly mode: 'postgres-leases' | 'single-process',
  ) {}

  acquired(takeover?: TakeoverRecord): void {
    this.acquisitions++;
    if (!takeover) return;
    this.takeovers++;
    this.recentTakeovers.push(takeover);
    if (this.recentTakeovers.length > RECENT_TAKEOVERS) this.recentTakeovers.shift();
  }

  leaseLost(): void {
    this.lost++;
  }

  /** JSON form for /health/ready. */
  snapshot(lag: WorkerLag) {
    const leases = this.heldLeases().sort();
    return {
      id: this.replicaId,
      mode: this.mode,
      leases,
      leasesHeld: leases.length,
      acquisitions: this.acquisitions,
      takeovers: this.takeovers,
      leasesLost: this.lost,
      recentTakeovers: [...this.recentTakeovers],
      workerLag: lag,
    };
  }

  /** Prometheus text exposition of the same counters. */
  prometheus(lag: WorkerLag): string {
    const r = `replica="${this.replicaId.replace(/["\\\n]/g, '_')}"`;
    const metric = (name: string, type: string, help: string, value: number) =>
      `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${name}{${r}} ${value}\n`;
    return [
      metric('lorekeeper_leases_held', 'gauge', 'Campaign leases this replica holds.', this.heldLeases().length),
      metric('lorekeeper_lease_acquisitions_total', 'counter', 'Campaign leases acquired.', this.acquisitions),
      metric(
        'lorekeeper_lease_takeovers_total',
        'counter',
        'Leases taken over after another replica let them expire.',
        this.takeovers,
      ),
      metric(
        'lorekeeper_leases_lost_total',
        'counter',
        'Leases lost while working (work abandoned, nothing committed).',
        this.lost,
      ),
      metric(
        'lorekeeper_worker_lag_campaigns',
        'gauge',
        'Campaigns whose memory worker checkpoint is behind their version.',
        lag.campaigns,
      ),
      metric(
        'lorekeeper_worker_lag_events',
        'gauge',
        'Events not yet processed by the memory worker, over all campaigns.',
        lag.events,
      ),
    ].join('');
  }
}
