import { CampaignReader, CampaignSnapshot, currentHorizon, emptyState, Fact } from '@app/campaign';
import { FixedClock } from '@app/common';
import { WorkerProgress } from '@app/memory';
import { ContextComposer } from './context.composer';
import { ContextRequest } from './context.types';
import { ContextBuildLog, ContextService, GetContextQuery } from './get-context.query';
import { DigestSection } from './sections/digest.section';
import { HudSection } from './sections/hud.section';

const words = { count: (t: string) => (t.trim() ? t.trim().split(/\s+/).length : 0) };
const fact: Fact = {
  type: 'conflict',
  key: 'war',
  value: 'War in the north',
  priority: 0,
  expiresAt: null,
  status: 'active',
  assertedAt: '',
  assertedVersion: 2,
  resolvedAt: null,
};
const snapshot: CampaignSnapshot = {
  state: {
    ...emptyState('c1'),
    version: 3,
    facts: { 'conflict:war': fact },
    players: {
      aria: { id: 'aria', name: 'Aria', aliases: [], stats: [{ label: 'HP', value: '9/10' }], registeredVersion: 3 },
    },
  },
  horizon: currentHorizon({ ...emptyState('c1'), version: 3 }),
};
const reader = { get: async () => snapshot, snapshot: async () => snapshot } as unknown as CampaignReader;
const request = (extra: Partial<ContextRequest> = {}): ContextRequest => ({
  campaignId: 'c1',
  agent: 'player',
  limit: 3,
  viewer: 'aria',
  include: ['hud', 'digest'],
  legacy: false,
  ...extra,
});

describe('ContextService build log', () => {
  it('logs one structured line per build: digest injection, version prefix, tokens per section, drops', async () => {
    const lines: ContextBuildLog[] = [];
    const composer = new ContextComposer(words, [
      new DigestSection(words, new FixedClock(), 180),
      new HudSection(words, 40),
    ]);
    const service = new ContextService(
      reader,
      { get: async () => ({ processedVersion: 3, memoryVersion: 0, timeline: 1 }) },
      new WorkerProgress(),
      composer,
      4000,
      (l) => lines.push(l),
    );
    const first = await service.build(new GetContextQuery(request()));
    const version = (first.extra.digest as { version: string }).version;
    await service.build(new GetContextQuery(request({ digestVersion: version })));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      campaign: 'c1',
      agent: 'player',
      viewer: 'aria',
      digest_injected: true,
      digest_version: version.slice(0, 12),
      dropped: 0,
    });
    expect(lines[0].tokens).toEqual({ hud: 3, digest: 8 });
    expect(lines[0].latency_ms).toBeGreaterThanOrEqual(0);
    expect(lines[1]).toMatchObject({ digest_injected: false, tokens: { hud: 3 } });
  });
});
