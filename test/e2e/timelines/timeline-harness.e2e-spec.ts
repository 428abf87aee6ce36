import { FixedClock } from '@app/common';
import { differences, normalize, readEverything } from '../../support/read-everything';
import { RecordingSummarizer } from '../../support/recording-summarizer';
import { buildTimelineCampaign, TimelineScenario } from '../../support/timeline-scenario';
import { startTestApp, TestApp } from '../../support/test-app';

/**
 * The timelines harness on its own (issue 20): the scripted campaign builds, covers every kind of read, and
 * `readEverything` is deterministic — a campaign compared with itself is equal, and one changed field is found.
 * Runs without the §10 routes (`timelineOps: false`), so it guards the harness before lanes 1–5 land.
 */
describe.each([false, true])('timelines harness (scenario + readEverything), perRoleMemory %s', (perRoleMemory) => {
  let t: TestApp;
  let s: TimelineScenario;
  const summarizer = new RecordingSummarizer();
  const clock = new FixedClock(new Date('2026-03-01T18:00:00.000Z'));
  beforeAll(async () => {
    t = await startTestApp({ summarizer, clock });
    s = await buildTimelineCampaign(t, 'harness', { perRoleMemory, clock, timelineOps: false });
  }, 120_000);
  afterAll(async () => t.close());

  it('writes every kind of memory, Previously, glossary terms, facts of each status and ascending versions', async () => {
    const e = await readEverything(t, 'harness', { timelines: false });
    const v = s.versions;
    expect(v.setup).toBeLessThan(v.midScene);
    expect(v.midScene).toBeLessThan(v.afterWorld);
    expect(v.afterWorld).toBeLessThan(v.end);
    const scopes = new Set((e.memories.all as any[]).map((m) => m.scope));
    expect([...scopes].sort()).toEqual(['location', 'npc', 'world']);
    expect(e.events.memory.map((x) => x.type)).toEqual(
      expect.arrayContaining(['MemoryRecorded', 'RollingSummaryUpdated', 'GlossaryTermAdded']),
    );
    expect(e.contexts['dm plain text']).toContain('Previously');
    const terms = (e.glossary as any).items.map((i: any) => [i.term, !!i.locked, !!i.hidden]);
    expect(terms).toEqual(
      expect.arrayContaining([
        ['Ember Gate', true, false],
        ['Ashen Choir', false, true],
      ]),
    );
    const facts = (e.facts as any).items.map((f: any) => f.status).sort();
    expect(new Set(facts)).toEqual(new Set(['active', 'expired', 'resolved']));
    expect((e.messages.all as any[]).some((m) => m.visibility === 'private')).toBe(true);
    expect((e.messages.all as any[]).some((m) => m.toolCalls?.length)).toBe(true);
    expect(Object.keys(e.contexts)).toHaveLength((3 + 2 + 2) * 3 * 2);
  });

  it('reads the same campaign twice identically, and finds a single changed field', async () => {
    const a = await readEverything(t, 'harness', { timelines: false });
    const b = await readEverything(t, 'harness', { timelines: false });
    expect(differences(normalize(a), normalize(b))).toEqual([]);
    expect(normalize(a)).toEqual(normalize(b));

    const changed = structuredClone(b);
    (changed.memories.all[0] as any).summary += ' (edited)';
    expect(differences(normalize(a), normalize(changed))).toEqual([
      expect.stringMatching(/^\$\.memories\.all\.0\.summary: /),
    ]);
  });

  it('normalize maps only the fork’s own top-level fields', async () => {
    const a = await readEverything(t, 'harness', { timelines: false });
    const fork = structuredClone(a);
    const c = fork.campaign as any;
    Object.assign(c, { id: 'harness-fork', name: 'Fork', parent: { id: 'harness', version: c.version } });
    c.version += 1;
    fork.events.game.push({ version: c.version, type: 'CampaignForked', data: {}, metadata: {}, recordedAt: '' });
    for (const x of Object.values(fork.contexts)) if (typeof x === 'object') (x as any).version += 1;
    const V = (a.campaign as any).version;
    expect(normalize(fork, { forkedAt: V })).toEqual(normalize(a));
    // A section that differs is not normalized away.
    (fork.contexts['narrative plain json'] as any).sections = [];
    expect(normalize(fork, { forkedAt: V })).not.toEqual(normalize(a));
  });
});
