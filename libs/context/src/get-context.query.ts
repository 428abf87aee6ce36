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

/** Shared by the query handler: optional read-your-writes wait, then compose. */
export class ContextService {
  constructor(
    private readonly reader: CampaignReader,
    private readonly progress: WorkerProgress,
    private readonly composer: ContextComposer,
    private readonly defaultBudget: number,
  ) {}

  async build(q: GetContextQuery): Promise<ComposedContext> {
    const { request, wait } = q;
    await this.reader.get(request.campaignId);
    if (wait && wait.waitMs > 0) {
      await this.progress.waitFor(request.campaignId, wait.minVersion, wait.waitMs, async () => (await this.reader.get(request.campaignId)).processedVersion);
    }
    const snapshot = await this.reader.get(request.campaignId);
    const budget = request.legacy ? null : (request.budget ?? this.defaultBudget);
    return this.composer.compose(request, snapshot, budget);
  }
}
