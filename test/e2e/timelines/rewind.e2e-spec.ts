import { normalize, readEverything } from '../../support/read-everything';
import { RecordingSummarizer } from '../../support/recording-summarizer';
import { openStream } from '../../support/sse';
import { allMemories, caughtUp, tavernNight } from '../../support/timeline-scenario';
import { startTestApp, TestApp } from '../../support/test-app';

/**
 * Rewind in place (issue 20, DESIGN §10 "Rewind"): the one operation that lowers a version, so everything keyed by
 * version is keyed by (timeline, version) — the worker's claim, the state cache, If-Match, the stream, waits.
 */
describe('rewinding a campaign', () => {
  let t: TestApp;
  const summarizer = new RecordingSummarizer();
  beforeAll(async () => {
    t = await startTestApp({ summarizer });
  });
  afterAll(async () => t.close());

  const rewind = (cid: string, body: unknown, headers?: Record<string, string>) =>
    t.http('POST', `/v1/campaigns/${cid}/rewind`, body, headers);
  const memoryEvents = async (cid: string) =>
    (await t.http('GET', `/v1/campaigns/${cid}/events?stream=memory&limit=1000`)).body.items as any[];

  const tavern = async (cid: string) =>
    (
      await tavernNight(t, cid, [
        { role: 'player', speaker: 'Aria', content: 'Aria asks Mira about the crates.' },
        {
          role: 'npc',
          speaker: 'Mira Stone',
          content: 'Mira says the crates went to the lighthouse.',
          npcIds: ['mira'],
        },
      ])
    ).s;

  it('a summary in flight for the old timeline commits nothing; the worker redoes the new one', async () => {
    const s = await tavern('rw-held');
    const beforeMove = (await s.campaign()).version;
    summarizer.reset();
    const gate = summarizer.hold();
    await s.move('docks');
    await gate.reached();
    const inFlight = summarizer.total();

    const res = await rewind('rw-held', { toVersion: beforeMove });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      version: beforeMove + 1,
      timeline: 2,
      discarded: { game: 1, memory: 0 },
      keptAs: null,
    });
    // Rewinding calls no model.
    expect(summarizer.total()).toBe(inFlight);
    gate.release();
    await caughtUp(t, 'rw-held');
    expect((await memoryEvents('rw-held')).filter((e) => e.type === 'MemoryRecorded')).toEqual([]);
    expect(await allMemories(t, 'rw-held')).toEqual([]);

    // The new timeline's own move is summarized once, and only it is recorded.
    await s.move('docks');
    await s.settled();
    const recorded = (await memoryEvents('rw-held')).filter((e) => e.type === 'MemoryRecorded');
    expect(recorded.map((e) => e.data.triggerVersion)).toEqual(
      recorded.map(() => beforeMove + 2), // the rewind itself is beforeMove + 1
    );
    expect(recorded.length).toBeGreaterThan(0);
    const game = (await t.http('GET', '/v1/campaigns/rw-held/events?limit=1000')).body;
    expect(game.timeline).toBe(2);
    expect(game.items.at(-2)).toMatchObject({
      version: beforeMove + 1,
      type: 'CampaignRewound',
      data: { fromVersion: beforeMove + 1, toVersion: beforeMove, keptAs: null },
    });
  });

  it('never serves a pre-rewind state at a reused version number', async () => {
    const s = await tavern('rw-cache');
    await s.npc('vex', 'Vex', 'tavern');
    const X = (await s.campaign()).version;
    const at = (await s.context('?agent=dm')).body;
    expect(at.version).toBe(X);
    expect(JSON.stringify(at)).toContain('Vex');
    expect((await rewind('rw-cache', { toVersion: X - 1 })).status).toBe(200);
    // The rewind is X, so any write makes X + 1; the context must be the new timeline's, not the cached one.
    const ctx = (await s.context('?agent=dm')).body;
    expect(ctx).toMatchObject({ version: X, timeline: 2 });
    expect(JSON.stringify(ctx)).not.toContain('Vex');
    await s.npc('thorn', 'Thorn', 'tavern');
    const regrown = (await s.context('?agent=dm')).body;
    expect(regrown).toMatchObject({ version: X + 1, timeline: 2 });
    expect(JSON.stringify(regrown)).toContain('Thorn');
    expect(JSON.stringify(regrown)).not.toContain('Vex');
    expect((await s.campaign()).npcs.map((n: any) => n.id).sort()).toEqual(['mira', 'thorn']);
  });

  it('If-Match with a pre-rewind version is 412, also once the campaign has grown past it again', async () => {
    const s = await tavern('rw-match');
    const old = (await s.campaign()).version;
    expect((await rewind('rw-match', { toVersion: old - 2 })).status).toBe(200);
    const say = (headers: Record<string, string>) =>
      t.http('POST', '/v1/campaigns/rw-match/messages', { messages: [{ role: 'dm', content: 'again' }] }, headers);
    const stale = await say({ 'if-match': String(old) });
    expect(stale.status).toBe(412);
    expect(stale.body.detail).toContain(`2:${old - 1}`);
    // Grow back to and past the old head: the plain old number still names the old timeline.
    for (let i = 0; i < 3; i++) expect((await say({})).status).toBe(201);
    expect((await say({ 'if-match': String(old) })).status).toBe(412);
    const head = await s.campaign();
    const exact = await say({ 'if-match': `${head.timeline}:${head.version}` });
    expect(exact.status).toBe(201);
    expect(exact.headers.get('etag')).toBe(`"2:${head.version + 1}"`);
  });

  it('the stream says `rewound` and continues with ids of the new timeline; a minVersion wait returns', async () => {
    const s = await tavern('rw-stream');
    const head = (await s.campaign()).version;
    const stream = openStream(t.url, 'rw-stream');
    await stream.until((ev) => ev.some((e) => e.id === `1:game:${head}`));
    const waiting = t.http('GET', `/v1/campaigns/rw-stream/context?agent=dm&minVersion=${head + 50}&waitMs=15000`);
    const started = Date.now();
    expect((await rewind('rw-stream', { toVersion: 3 })).status).toBe(200);
    const waited = await waiting;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(waited.status).toBe(200);
    expect(waited.body.timeline).toBe(2);
    const events = await stream.until((ev) => ev.some((e) => e.event === 'rewound'));
    expect(events.find((e) => e.event === 'rewound')!.data).toMatchObject({
      timeline: 2,
      fromVersion: head,
      toVersion: 3,
    });
    await s.say({ role: 'dm', content: 'A new night begins.' });
    await stream.until((ev) => ev.some((e) => e.id === '2:game:5'));
    stream.close();
  });

  it('keepAs keeps the whole pre-rewind campaign as a fork at the old head', async () => {
    const s = await tavern('rw-keep');
    await s.move('docks');
    await s.settled();
    const head = (await s.campaign()).version;
    expect((await t.http('POST', '/v1/campaigns/rw-keep/fork', { id: 'rw-keep-ref' })).status).toBe(201);
    await caughtUp(t, 'rw-keep-ref');
    const calls = summarizer.total();
    const res = await rewind('rw-keep', { toVersion: 2, keepAs: 'rw-keep-old' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version: 3, timeline: 2 });
    await caughtUp(t, 'rw-keep-old');
    expect(summarizer.total()).toBe(calls);
    const kept = normalize(await readEverything(t, 'rw-keep-old'), { forkedAt: head });
    const ref = normalize(await readEverything(t, 'rw-keep-ref'), { forkedAt: head });
    expect(kept).toEqual(ref);
    expect((await t.http('GET', '/v1/campaigns/rw-keep-old')).body.parent).toEqual({ id: 'rw-keep', version: head });
    expect((await s.campaign()).messageCount).toBe(0);
  });

  it('rejects a bad rewind with the §10 codes and changes nothing; toVersion = version is a no-op', async () => {
    const s = await tavern('rw-bad');
    const { version } = await s.campaign();
    const events = async () => (await t.http('GET', '/v1/campaigns/rw-bad/events?limit=1000')).body.items.length;
    const n = await events();
    await t.http('POST', '/v1/campaigns', { id: 'rw-taken', name: 'Taken' });
    const cases: [string, unknown, number, string][] = [
      ['nowhere', { toVersion: 1 }, 404, 'CAMPAIGN_NOT_FOUND'],
      ['rw-bad', { toVersion: 0 }, 400, 'INVALID_VERSION'],
      ['rw-bad', { toVersion: version + 1 }, 400, 'INVALID_VERSION'],
      ['rw-bad', { toVersion: 1, keepAs: 'rw-taken' }, 409, 'CAMPAIGN_EXISTS'],
      ['rw-bad', { toVersion: 1, keepAs: 'rw-bad' }, 409, 'CAMPAIGN_EXISTS'],
      ['rw-bad', {}, 400, 'VALIDATION_FAILED'],
      ['rw-bad', { toVersion: 1.5 }, 400, 'VALIDATION_FAILED'],
      ['rw-bad', { toVersion: 1, keepAs: 'no spaces' }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [cid, body, status, code] of cases) {
      const r = await rewind(cid, body);
      expect({ cid, body, status: r.status, code: r.body?.code }).toEqual({ cid, body, status, code });
      expect(r.headers.get('content-type')).toContain('application/problem+json');
    }
    expect(await events()).toBe(n);
    const noop = await rewind('rw-bad', { toVersion: version });
    expect(noop.status).toBe(200);
    expect(noop.body).toEqual({ version, timeline: 1, discarded: { game: 0, memory: 0 }, keptAs: null });
    expect(await events()).toBe(n);
  });
});
