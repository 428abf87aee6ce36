import { Database } from '@app/event-store';
import { CampaignRecord } from '@app/campaign';
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
  readonly eventsAppended = new Counter({ name: 'lorekeeper_events_appended_total', help: 'Events appended by type', labelNames: ['type'] as const, registers: [this.registry] });
  readonly summarizerCalls = new Counter({ name: 'lorekeeper_summarizer_calls_total', help: 'Summarizer calls by scope', labelNames: ['scope'] as const, registers: [this.registry] });
  readonly summarizerFailures = new Counter({ name: 'lorekeeper_summarizer_failures_total', help: 'Failed summarizer calls by scope', labelNames: ['scope'] as const, registers: [this.registry] });
  readonly summarizerTokens = new Counter({
    name: 'lorekeeper_summarizer_tokens_total',
    help: 'Summarizer tokens by scope and direction',
    labelNames: ['scope', 'direction'] as const,
    registers: [this.registry],
  });
  readonly memoriesRecorded = new Counter({ name: 'lorekeeper_memories_recorded_total', help: 'Memories recorded by scope', labelNames: ['scope'] as const, registers: [this.registry] });
  readonly memoriesSkipped = new Counter({ name: 'lorekeeper_memories_skipped_total', help: 'Summaries skipped after the last failed attempt, by scope', labelNames: ['scope'] as const, registers: [this.registry] });
  readonly workerLag: Gauge<'stat'>;

  constructor(db: Database) {
    collectDefaultMetrics({ register: this.registry, prefix: 'lorekeeper_' });
    this.workerLag = new Gauge({
      name: 'lorekeeper_worker_lag_events',
      help: 'Worker lag (version - processedVersion) over campaigns: max, sum, campaigns behind',
      labelNames: ['stat'] as const,
      registers: [this.registry],
      collect: async () => {
        const row = await db.read((m) =>
          m
            .getRepository(CampaignRecord)
            .createQueryBuilder('c')
            .select('COALESCE(MAX(c.version - c.processedVersion), 0)', 'max')
            .addSelect('COALESCE(SUM(c.version - c.processedVersion), 0)', 'sum')
            .addSelect('COUNT(*)', 'behind')
            .where('c.processedVersion < c.version')
            .getRawOne<{ max: string; sum: string; behind: string }>(),
        );
        this.workerLag.set({ stat: 'max' }, Number(row?.max ?? 0));
        this.workerLag.set({ stat: 'sum' }, Number(row?.sum ?? 0));
        this.workerLag.set({ stat: 'campaigns_behind' }, Number(row?.behind ?? 0));
      },
    });
  }
}
