import { WorkerLag } from '@app/memory';
import { ReplicaMetrics } from '@app/replica';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Every Prometheus metric of the service, on its own registry (DESIGN §3 /metrics). */
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration = new Histogram({
    name: 'lorekeeper_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [this.registry],
  });
  readonly eventsAppended = new Counter({
    name: 'lorekeeper_events_appended_total',
    help: 'Events appended by type',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });
  readonly summarizerCalls = new Counter({
    name: 'lorekeeper_summarizer_calls_total',
    help: 'Summarizer calls by scope',
    labelNames: ['scope'] as const,
    registers: [this.registry],
  });
  readonly summarizerFailures = new Counter({
    name: 'lorekeeper_summarizer_failures_total',
    help: 'Failed summarizer calls by scope',
    labelNames: ['scope'] as const,
    registers: [this.registry],
  });
  readonly summarizerTokens = new Counter({
    name: 'lorekeeper_summarizer_tokens_total',
    help: 'Summarizer tokens by scope and direction',
    labelNames: ['scope', 'direction'] as const,
    registers: [this.registry],
  });
  // §12 usage ledger, counted as rows become durable: the same numbers GET /v1/campaigns/:cid/usage sums.
  readonly modelCalls = new Counter({
    name: 'lorekeeper_model_calls_total',
    help: 'Model call attempts in the usage ledger by scope, model and outcome (ok, empty, error, timeout, abandoned)',
    labelNames: ['scope', 'model', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly modelTokens = new Counter({
    name: 'lorekeeper_model_tokens_total',
    help: 'Tokens in the usage ledger by scope, model and kind (input = uncached, output, cache_read, cache_write)',
    labelNames: ['scope', 'model', 'kind'] as const,
    registers: [this.registry],
  });
  readonly modelCost = new Counter({
    name: 'lorekeeper_model_cost_usd_total',
    help: 'Estimated USD at MODEL_PRICES by scope and model (priced models only)',
    labelNames: ['scope', 'model'] as const,
    registers: [this.registry],
  });
  readonly memoriesRecorded = new Counter({
    name: 'lorekeeper_memories_recorded_total',
    help: 'Memories recorded by scope',
    labelNames: ['scope'] as const,
    registers: [this.registry],
  });
  readonly memoriesSkipped = new Counter({
    name: 'lorekeeper_memories_skipped_total',
    help: 'Summaries skipped after the last failed attempt, by scope',
    labelNames: ['scope'] as const,
    registers: [this.registry],
  });

  /** `readWorkerLag`: campaign versions against memory checkpoints (each owner reads its own table). */
  constructor(replica: ReplicaMetrics, readWorkerLag: () => Promise<WorkerLag>) {
    collectDefaultMetrics({ register: this.registry, prefix: 'lorekeeper_' });
    const labels = ['replica'] as const;
    const r = { replica: replica.replicaId };
    const gauge = (name: string, help: string, read: () => number | Promise<number>) =>
      new Gauge({
        name,
        help,
        labelNames: labels,
        registers: [this.registry],
        async collect() {
          this.set(r, await read());
        },
      });
    // Replica counters live in ReplicaMetrics (libs/replica); exposed here as monotonic gauges read at scrape time.
    gauge('lorekeeper_leases_held', 'Campaign leases this replica holds', () => replica.heldLeases().length);
    gauge('lorekeeper_lease_acquisitions_total', 'Campaign leases acquired', () => replica.acquisitions);
    gauge(
      'lorekeeper_lease_takeovers_total',
      'Leases taken over after another replica let them expire',
      () => replica.takeovers,
    );
    gauge(
      'lorekeeper_leases_lost_total',
      'Leases lost while working (work abandoned, nothing committed)',
      () => replica.lost,
    );
    let lag: Promise<WorkerLag> | null = null;
    // One read per scrape feeds the three lag gauges.
    const readLag = () => (lag ??= readWorkerLag().finally(() => setTimeout(() => (lag = null), 0)));
    gauge(
      'lorekeeper_worker_lag_events',
      'Events not yet processed by the memory worker, over all campaigns (version - processedVersion)',
      async () => (await readLag()).events,
    );
    gauge('lorekeeper_worker_lag_max_events', 'Largest worker lag of one campaign', async () => (await readLag()).max);
    gauge(
      'lorekeeper_worker_lag_campaigns',
      'Campaigns whose worker checkpoint is behind their version',
      async () => (await readLag()).campaigns,
    );
  }
}
