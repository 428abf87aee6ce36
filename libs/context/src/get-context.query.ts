import { CampaignReader, CampaignState, characterKind, viewerKey } from '@app/campaign';
import { invalid, notFound } from '@app/common';
import { WorkerProgress } from '@app/memory';
import { Query } from '@nestjs/cqrs';
import { ComposedContext, ContextComposer } from './context.composer';
import { Audience, ContextRequest } from './context.types';

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
    if ((request.agent === 'player' || request.agent === 'npc') && request.viewer === undefined) {
      throw invalid('VIEWER_REQUIRED', `agent=${request.agent} needs viewer=<the ${request.agent === 'player' ? 'player' : 'NPC'} id>`);
    }
    await this.reader.get(request.campaignId);
    if (wait && wait.waitMs > 0) {
      await this.progress.waitFor(request.campaignId, wait.minVersion, wait.waitMs, async () => (await this.reader.get(request.campaignId)).processedVersion);
    }
    const snapshot = await this.reader.get(request.campaignId);
    const budget = request.legacy ? null : (request.budget ?? this.defaultBudget);
    return this.composer.compose(request, snapshot, budget, audienceOf(request, snapshot.state));
  }
}

/** The dm sees all; a named viewer sees what it witnessed (a player agent's viewer is a player, an npc agent's an NPC). */
export function audienceOf(request: ContextRequest, state: CampaignState): Audience {
  const dm = request.agent === 'dm';
  if (request.viewer === undefined) return { dm, viewer: null, witness: null };
  const prefer = request.agent === 'player' ? 'player' : request.agent === 'npc' ? 'npc' : undefined;
  const kind = characterKind(state, request.viewer, prefer);
  if (!kind) throw notFound('VIEWER_NOT_FOUND', `viewer ${request.viewer} is not a known ${prefer === 'npc' ? 'NPC' : prefer ?? 'player or NPC'}`);
  return { dm, viewer: { kind, id: request.viewer }, witness: dm ? null : viewerKey(kind, request.viewer) };
}
