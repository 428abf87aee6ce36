import { FixedClock } from '@app/common';
import { rebuildProjections } from '../../../scripts/rebuild-projections';
import { differences, Everything, normalize, readEverything } from '../../support/read-everything';
import { RecordingSummarizer } from '../../support/recording-summarizer';
import { buildTimelineCampaign, caughtUp, TimelineScenario, TimelineVersions } from '../../support/timeline-scenario';
import { startTestApp, TestApp } from '../../support/test-app';

/**
 * Branch equivalence (issue 20, DESIGN §10): a fork of C at V serves every read exactly as C serves it with
 * `asOf=V` — whole answers, every agent and viewer, every list page — and forking calls no model.
 */
describe.each([false, true])('fork = the parent as of V (perRoleMemory %s)', (perRoleMemory) => {
  let t: TestApp;
  let s: TimelineScenario;
  const summarizer = new RecordingSummarizer();
  const clock = new FixedClock(new Date('2026-03-01T18:00:00.000Z'));
  const cid = perRoleMemory ? 'saltmarsh-roles' : 'saltmarsh';
  let end: Date;
  /** What each fork read right after it caught up, compared again after a projection rebuild. */
  const forkReads = new Map<string, Everything>();

  beforeAll(async () => {
    t = await startTestApp({ summarizer, clock });
    s = await buildTimelineCampaign(t, cid, { perRoleMemory, clock });
    end = clock.now();
  }, 180_000);
  afterAll(async () => t?.close());

  /**
   * SQLite's FTS5 bm25 weighs a term by the whole index (every campaign's rows): another campaign's write, or a rebuild
   * that indexes the campaigns again, moves a search hit's score, never which hits a campaign has, their order or their
   * text. So reads of one campaign at two moments compare without scores (PostgreSQL's ts_rank has no such weight).
   */
  const unscored = (e: Everything) => {
    for (const r of Object.values(e.search) as { items: { score?: number }[] }[])
      for (const hit of r.items) delete hit.score;
    return e;
  };

  /** The recorded time of game event V: a fact's expiry is judged there (§10), so the fork is read at that time. */
  const recordedAt = async (v: number): Promise<string> => {
    const r = await t.http('GET', `/v1/campaigns/${cid}/events?after=${v - 1}&limit=1`);
    return r.body.items[0].recordedAt;
  };

  const names: (keyof TimelineVersions)[] = [
    'setup',
    'midScene',
    'afterWorld',
    'afterRetraction',
    'beforeCorrection',
    'afterCorrection',
    'end',
  ];

  it('the scenario reached every interesting version, in order', () => {
    const vs = names.map((n) => s.versions[n]);
    expect(vs.every((v) => typeof v === 'number')).toBe(true);
    expect([...vs].sort((a, b) => a! - b!)).toEqual(vs);
  });

  it.each(names)(
    'a fork at %s serves what the parent serves as of that version',
    async (name) => {
      const V = s.versions[name]!;
      const fork = `${cid}-at-${name}`;
      await caughtUp(t, cid);
      clock.set(await recordedAt(V));
      try {
        const calls = summarizer.total();
        const res = await t.http('POST', `/v1/campaigns/${cid}/fork`, {
          id: fork,
          name: `What if (${name})`,
          atVersion: V,
        });
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ id: fork, name: `What if (${name})`, parent: { id: cid, version: V } });
        expect(res.body.version).toBe(V + 1);
        await caughtUp(t, fork);
        // Forking copies the summaries recorded as events: no model call, not even from the fork's own worker.
        expect(summarizer.total()).toBe(calls);

        const parentAt = normalize(await readEverything(t, cid, { asOf: V }));
        const forkNow = normalize(await readEverything(t, fork), { forkedAt: V });
        // §10: an as-of context leaves the game-state section out (`not-historical`) and a fork copies no snapshots,
        // so the agent preset's current context (its state section: "No game state stored yet.") cannot equal the
        // parent's as-of one. It is compared in full below, read as of V on both sides.
        const current = (e: Everything) => ({
          ...e,
          contexts: Object.fromEntries(Object.entries(e.contexts).filter(([k]) => !k.startsWith('agent '))),
        });
        expect(differences(current(forkNow), current(parentAt))).toEqual([]);
        expect(current(forkNow)).toEqual(current(parentAt));
        expect((await readEverything(t, fork)).events.game.at(-1)).toMatchObject({
          version: V + 1,
          type: 'CampaignForked',
          data: { parentId: cid, parentVersion: V, name: `What if (${name})` },
        });

        const forkAt = normalize(await readEverything(t, fork, { asOf: V }));
        expect(differences(forkAt, parentAt)).toEqual([]);
        expect(forkAt).toEqual(parentAt);
        forkReads.set(fork, await readEverything(t, fork, { asOf: V + 1 }));
      } finally {
        clock.set(end);
      }
    },
    120_000,
  );

  it('the parent lists its children and the campaign list shows each fork’s parent', async () => {
    const parent = (await t.http('GET', `/v1/campaigns/${cid}`)).body;
    expect(parent.parent).toBeNull();
    expect(parent.children).toEqual(
      names.map((n) => ({ id: `${cid}-at-${n}`, atVersion: s.versions[n] })).filter((c) => forkReads.has(c.id)),
    );
    const listed: any[] = [];
    for (let after: string | undefined; ;) {
      const r = await t.http('GET', `/v1/campaigns?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`);
      expect(r.status).toBe(200);
      listed.push(...r.body.items);
      if (r.body.items.length < 100) break;
      after = r.body.items.at(-1).id;
    }
    for (const n of names) {
      const row = listed.find((c) => c.id === `${cid}-at-${n}`);
      expect(row).toMatchObject({ parent: { id: cid, version: s.versions[n] } });
      expect(row.version).toBe(s.versions[n]! + 1);
    }
  });

  it('later writes to the parent or to a fork never touch the other', async () => {
    const fork = `${cid}-at-end`;
    const before = unscored(normalize(await readEverything(t, fork)));
    const said = await t.http('POST', `/v1/campaigns/${cid}/messages`, {
      messages: [{ role: 'narrator', content: 'Only the parent hears the bell of the drowned chapel.' }],
    });
    expect(said.status).toBe(201); // DESIGN §2: POST …/messages → 201 {indexes, version}
    await caughtUp(t, cid);
    expect(unscored(normalize(await readEverything(t, fork)))).toEqual(before);
    const forkSaid = await t.http('POST', `/v1/campaigns/${fork}/messages`, {
      messages: [{ role: 'narrator', content: 'Only the fork hears the gulls.' }],
    });
    expect(forkSaid.status).toBe(201);
    const parentMessages = (await t.http('GET', `/v1/campaigns/${cid}/messages?limit=1000`)).body.items;
    expect(parentMessages.map((m: any) => m.content)).not.toContain('Only the fork hears the gulls.');
    await caughtUp(t, fork);
  });

  it('rejects a bad fork with the §10 codes and appends nothing', async () => {
    const events = async (id: string) =>
      (await t.http('GET', `/v1/campaigns/${id}/events?limit=1000`)).body.items.length;
    const parentEvents = await events(cid);
    const { version } = (await t.http('GET', `/v1/campaigns/${cid}`)).body;
    const cases: [string, unknown, number, string][] = [
      ['/v1/campaigns/nowhere/fork', { id: 'from-nowhere' }, 404, 'CAMPAIGN_NOT_FOUND'],
      [`/v1/campaigns/${cid}/fork`, { id: 'too-late', atVersion: version + 1 }, 400, 'INVALID_VERSION'],
      [`/v1/campaigns/${cid}/fork`, { id: 'too-early', atVersion: 0 }, 400, 'INVALID_VERSION'],
      [`/v1/campaigns/${cid}/fork`, { id: `${cid}-at-end` }, 409, 'CAMPAIGN_EXISTS'],
      [`/v1/campaigns/${cid}/fork`, { id: cid }, 409, 'CAMPAIGN_EXISTS'],
      [`/v1/campaigns/${cid}/fork`, { id: 'bad id!' }, 400, 'VALIDATION_FAILED'],
      [`/v1/campaigns/${cid}/fork`, { atVersion: 'three' }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [path, body, status, code] of cases) {
      const r = await t.http('POST', path, body);
      expect({ path, body, status: r.status, code: r.body?.code }).toEqual({ path, body, status, code });
      expect(r.headers.get('content-type')).toContain('application/problem+json');
    }
    expect(await events(cid)).toBe(parentEvents);
    for (const id of ['from-nowhere', 'too-late', 'too-early'])
      expect((await t.http('GET', `/v1/campaigns/${encodeURIComponent(id)}`)).status).toBe(404);
    // An id the service cannot hold is refused as such (400), so it cannot exist either.
    expect((await t.http('GET', `/v1/campaigns/${encodeURIComponent('bad id!')}`)).status).toBe(400);
  });

  it('a retried fork with its Idempotency-Key answers the same and forks once', async () => {
    const headers = { 'idempotency-key': `fork-once-${cid}` };
    const first = await t.http('POST', `/v1/campaigns/${cid}/fork`, { id: `${cid}-once` }, headers);
    expect(first.status).toBe(201);
    const again = await t.http('POST', `/v1/campaigns/${cid}/fork`, { id: `${cid}-once` }, headers);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('a projection rebuild gives each fork exactly what it served (what a rebuild of its streams gives)', async () => {
    expect(forkReads.size).toBe(names.length);
    const config = t.config;
    await t.close();
    await rebuildProjections(config);
    t = await startTestApp({ dbPath: t.dbPath, summarizer, clock });
    const calls = summarizer.total();
    for (const [fork, before] of forkReads) {
      // Read as of the version it was kept at: the "later writes" test has written to the end fork since.
      const after = await readEverything(t, fork, { asOf: (before.campaign as any).version });
      expect({ fork, diff: differences(unscored(after), unscored(before)) }).toEqual({ fork, diff: [] });
    }
    expect(summarizer.total()).toBe(calls);
  }, 180_000);
});
