import { CampaignReader, CampaignState, characterKind, PUBLIC_WITNESS, viewerKey } from '@app/campaign';
import { invalid, notFound } from '@app/common';
import { CheckpointStore, WorkerProgress } from '@app/memory';
import { Query } from '@nestjs/cqrs';
import { ComposedContext, ContextComposer } from './context.composer';
import { Audience, ContextRequest } from './context.types';
import { PRESETS, stateKindsOf } from './sections';

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
    private readonly checkpoints: Pick<CheckpointStore, 'get'>,
    private readonly progress: WorkerProgress,
    private readonly composer: ContextComposer,
    private readonly defaultBudget: number,
    private readonly log: (line: ContextBuildLog) => void = () => undefined,
  ) {}

  async build(q: GetContextQuery): Promise<ComposedContext> {
    await this.admit(q);
    return this.compose(q.request);
  }

  /**
   * What runs where the request arrived (DESIGN §13: the main thread): the request's own checks and the optional
   * read-your-writes wait, which only the thread running the memory worker can end early. Without a wait the
   * campaign is not read here: `compose` reads it where it builds (the same 404), so the main thread reads no state.
   */
  async admit(q: GetContextQuery): Promise<void> {
    const { request, wait } = q;
    if ((request.agent === 'player' || request.agent === 'npc') && request.viewer === undefined) {
      throw invalid(
        'VIEWER_REQUIRED',
        `agent=${request.agent} needs viewer=<the ${request.agent === 'player' ? 'player' : 'NPC'} id>`,
      );
    }
    // §10: a past version needs no wait (its memories are what the worker had recorded for it by now).
    if (request.asOf !== undefined && wait !== undefined)
      throw invalid(
        'INVALID_VERSION',
        'asOf cannot be combined with minVersion or waitMs: a past version needs no wait',
      );
    if (wait && wait.waitMs > 0) {
      await this.reader.get(request.campaignId);
      // §10: a rewind ends the wait — minVersion named a version of the timeline the wait started in.
      const mark = async () => {
        const c = await this.checkpoints.get(request.campaignId);
        return { processed: c.processedVersion, timeline: c.timeline ?? 1 };
      };
      const { timeline } = await mark();
      await this.progress.waitFor(request.campaignId, wait.minVersion, wait.waitMs, mark, undefined, timeline);
    }
  }

  /** The build itself, on any thread with a read connection (DESIGN §13: a read worker). */
  async compose(request: ContextRequest): Promise<ComposedContext> {
    const started = performance.now();
    // The checkpoint before the state: read later, the state's version can only be further on (processed ≤ version).
    const processed = (await this.checkpoints.get(request.campaignId)).processedVersion;
    // §10: a past state holds only the kinds the asked sections read.
    const kinds = stateKindsOf(request.include ?? PRESETS[request.agent]);
    const read = await this.reader.snapshot(request.campaignId, request.asOf, kinds);
    // As of V the worker had processed at most V: capped, it says what was true of that version.
    const snapshot = { ...read, processedVersion: Math.min(processed, read.state.version) };
    const budget = request.legacy ? null : (request.budget ?? this.defaultBudget);
    const composed = await this.composer.compose(request, snapshot, budget, audienceOf(request, snapshot.state));
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

/**
 * The dm sees all; a named viewer sees what it witnessed (a player agent's viewer is a player, an npc agent's an NPC).
 */
export function audienceOf(request: ContextRequest, state: CampaignState): Audience {
  const dm = request.agent === 'dm';
  // §8: without a viewer, everyone but the dm gets the public view.
  if (request.viewer === undefined) return { dm, viewer: null, witness: dm ? null : PUBLIC_WITNESS };
  const prefer = request.agent === 'player' ? 'player' : request.agent === 'npc' ? 'npc' : undefined;
  const kind = characterKind(state, request.viewer, prefer);
  if (!kind)
    throw notFound(
      'VIEWER_NOT_FOUND',
      `viewer ${request.viewer} is not a known ${prefer === 'npc' ? 'NPC' : (prefer ?? 'player or NPC')}`,
    );
  return { dm, viewer: { kind, id: request.viewer }, witness: dm ? null : viewerKey(kind, request.viewer) };
}
