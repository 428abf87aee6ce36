import { CampaignReader } from '@app/campaign';
import { WorkerProgress } from '@app/memory';
import { Query } from '@nestjs/cqrs';
import { ComposedContext, ContextComposer } from './context.composer';
import { ContextRequest } from './context.types';

export class GetContextQuery extends Query<ComposedContext> {
  constructor(
    readonly request: ContextRequest,
    readonly wait?: { minVersion: number; waitMs: number },
  ) {
    super();
  }
}

/** The one structured line each context build logs (DESIGN §6). */
export interface ContextBuildLog {
  campaign: string;
  agent: string;
  agent_id: string | null;
  viewer: string | null;
  digest_injected: boolean | null;
  digest_version: string | null;
  tokens: Record<string, number>;
  dropped: number;
  latency_ms: number;
}

/** Shared by the query handler: optional read-your-writes wait, then compose. */
export class ContextService {
  constructor(
    private readonly reader: CampaignReader,
    private readonly progress: WorkerProgress,
    private readonly composer: ContextComposer,
    private readonly defaultBudget: number,
    private readonly log: (line: ContextBuildLog) => void = () => undefined,
  ) {}

  async build(q: GetContextQuery): Promise<ComposedContext> {
    const started = performance.now();
    const { request, wait } = q;
    await this.reader.get(request.campaignId);
    if (wait && wait.waitMs > 0) {
      await this.progress.waitFor(request.campaignId, wait.minVersion, wait.waitMs, async () => (await this.reader.get(request.campaignId)).processedVersion);
    }
    const snapshot = await this.reader.get(request.campaignId);
    const budget = request.legacy ? null : (request.budget ?? this.defaultBudget);
    const composed = await this.composer.compose(request, snapshot, budget);
    this.log(buildLog(composed, performance.now() - started));
    return composed;
  }
}

function buildLog(c: ComposedContext, latencyMs: number): ContextBuildLog {
  const digest = c.extra.digest as { version: string; injected: boolean } | undefined;
  return {
    campaign: c.request.campaignId,
    agent: c.request.agent,
    agent_id: c.request.agentId ?? null,
    viewer: c.request.viewer ?? null,
    digest_injected: digest ? digest.injected : null,
    digest_version: digest ? digest.version.slice(0, 12) : null,
    tokens: Object.fromEntries(c.sections.map((s) => [s.key, s.tokens])),
    dropped: c.dropped.length,
    latency_ms: Math.round(latencyMs * 10) / 10,
  };
}
