import { readEverything } from '../../support/read-everything';
import { RecordingSummarizer } from '../../support/recording-summarizer';
import { allMemories, caughtUp, tavernNight } from '../../support/timeline-scenario';
import { startTestApp, TestApp } from '../../support/test-app';

/**
 * Game-master corrections (issue 20, DESIGN §10 "Corrections"): a corrected memory reads as written, is locked
 * against revision and keeps its history; a deleted one is never served again; as-of reads before show the old text.
 */
describe('correcting and deleting memories', () => {
  let t: TestApp;
  const summarizer = new RecordingSummarizer();
  const cid = 'fix';
  let location: any;
  let npcMemory: any;
  beforeAll(async () => {
    t = await startTestApp({ summarizer });
    const { s } = await tavernNight(t, cid, [
      { role: 'player', speaker: 'Aria', content: 'Aria asks Mira about the smuggled crates.' },
      { role: 'npc', speaker: 'Mira Stone', content: 'Mira swears the crates hold blades.', npcIds: ['mira'] },
      { role: 'narrator', content: 'the fire crackles while the rain keeps falling.' },
    ]);
    await s.move('docks');
    await s.settled();
    const all = await allMemories(t, cid);
    location = all.find((m) => m.scope === 'location');
    npcMemory = all.find((m) => m.scope === 'npc');
    if (!location || !npcMemory) throw new Error('expected a location and an NPC memory');
  });
  afterAll(async () => t.close());

  const path = (id: string, rest = '') => `/v1/campaigns/${cid}/memories/${encodeURIComponent(id)}${rest}`;
  const version = async () => (await t.http('GET', `/v1/campaigns/${cid}`)).body.version as number;
  const events = async () => (await t.http('GET', `/v1/campaigns/${cid}/events?limit=1000`)).body.items as any[];
  const CORRECTED = 'Mira lied: the crates hold lamp oil, and the harbour master paid her to say otherwise.';

  it('serves a corrected memory as written, origin dm, with its history; as-of reads before show the old text', async () => {
    const before = await version();
    const res = await t.http('PUT', path(location.id), { summary: `  ${CORRECTED}  ` });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: location.id, summary: CORRECTED, origin: 'dm', revision: 2 });
    expect((await events()).at(-1)).toMatchObject({
      version: before + 1,
      type: 'MemoryCorrected',
      data: { memoryId: location.id, summary: CORRECTED },
    });
    const listed = (await allMemories(t, cid)).find((m) => m.id === location.id);
    expect(listed).toMatchObject({ summary: CORRECTED, origin: 'dm', revision: 2 });
    // The dm context's memory sections are the current location's (DESIGN §2): the party goes back to the tavern.
    await t.http('POST', `/v1/campaigns/${cid}/commands/change-location`, { toLocationId: 'tavern' });
    await caughtUp(t, cid);
    const dm = await t.http('GET', `/v1/campaigns/${cid}/context?agent=dm&format=text`);
    expect(dm.text).toContain(CORRECTED);
    expect(dm.text).not.toContain(location.summary);
    // DESIGN §7: a hit's `ref` is the memory id.
    const refs = async (q: string) =>
      (await t.http('GET', `/v1/campaigns/${cid}/search?${q}&in=memories`)).body.items.map(
        (h: { ref: string }) => h.ref,
      );
    expect(await refs(`q=${encodeURIComponent('lamp oil')}`)).toContain(location.id);
    // The old wording's search row is not served any more, but as of before the correction it is.
    expect(await refs('q=blades')).not.toContain(location.id);
    expect(await refs(`q=blades&asOf=${before}`)).toContain(location.id);

    const hist = (await t.http('GET', path(location.id, '/history'))).body.items;
    expect(hist.map((h: any) => [h.revision, h.summary, h.origin, h.reason])).toEqual([
      [1, location.summary, 'model', 'recorded'],
      [2, CORRECTED, 'dm', 'corrected'],
    ]);
    expect(hist[1].version).toBe(before + 1);

    const then = await readEverything(t, cid, { asOf: before });
    expect(then.memories.all.find((m: any) => m.id === location.id)).toMatchObject({
      summary: location.summary,
      origin: 'model',
      revision: 1,
    });
    const oldHist = (await t.http('GET', path(location.id, `/history?asOf=${before}`))).body.items;
    expect(oldHist.map((h: any) => h.reason)).toEqual(['recorded']);
  });

  it('never revises a locked memory: retracting one of its inputs costs no model call', async () => {
    summarizer.reset();
    const r = await t.http('POST', `/v1/campaigns/${cid}/messages/retract`, { indexes: [2] });
    expect(r.status).toBe(202);
    await caughtUp(t, cid);
    expect(summarizer.counts().location).toBe(0);
    const listed = (await allMemories(t, cid)).find((m) => m.id === location.id);
    expect(listed).toMatchObject({ summary: CORRECTED, origin: 'dm', revision: 2 });
  });

  it('a deleted memory is never served again, and its history ends with the deletion', async () => {
    const before = await version();
    const del = await t.http('DELETE', path(npcMemory.id));
    expect(del.status).toBe(204);
    const e = await readEverything(t, cid);
    const served = JSON.stringify({ ...e, events: null, history: null });
    expect(served).not.toContain(npcMemory.id);
    expect(served).not.toContain(npcMemory.summary);
    const hist = (await t.http('GET', path(npcMemory.id, '/history'))).body.items;
    // The retraction above took message 2, one of its inputs: the worker revised it (§10) before the deletion, and the
    // wording built from it reads withdrawn (§8).
    expect(hist.map((h: any) => h.reason)).toEqual(['withdrawn', 'revised', 'deleted']);
    expect(served).not.toContain(hist[1].summary);
    // Before the deletion it was there.
    const then = await readEverything(t, cid, { asOf: before });
    expect(then.memories.all.map((m: any) => m.id)).toContain(npcMemory.id);

    expect((await t.http('DELETE', path(npcMemory.id))).body.code).toBe('MEMORY_NOT_FOUND');
    expect((await t.http('PUT', path(npcMemory.id), { summary: 'back again' })).status).toBe(404);
  });

  it('rejects bad corrections with 4xx problem+json and appends nothing', async () => {
    const n = (await events()).length;
    const cases: [string, string, unknown, number, string][] = [
      ['PUT', path(location.id), { summary: '' }, 400, 'VALIDATION_FAILED'],
      ['PUT', path(location.id), { summary: '   ' }, 400, 'VALIDATION_FAILED'],
      ['PUT', path(location.id), { summary: 'x'.repeat(2001) }, 400, 'VALIDATION_FAILED'],
      ['PUT', path(location.id), {}, 400, 'VALIDATION_FAILED'],
      ['PUT', path(location.id), { summary: 'ok', extra: 1 }, 400, 'VALIDATION_FAILED'],
      ['PUT', path('mem-nope'), { summary: 'ok' }, 404, 'MEMORY_NOT_FOUND'],
      ['DELETE', path('mem-nope'), undefined, 404, 'MEMORY_NOT_FOUND'],
      ['GET', path('mem-nope', '/history'), undefined, 404, 'MEMORY_NOT_FOUND'],
      ['PUT', `/v1/campaigns/nowhere/memories/${location.id}`, { summary: 'ok' }, 404, 'CAMPAIGN_NOT_FOUND'],
      ['GET', path(location.id, '/history?asOf=0'), undefined, 400, 'INVALID_VERSION'],
    ];
    for (const [method, p, body, status, code] of cases) {
      const r = await t.http(method, p, body);
      expect({ method, p, status: r.status, code: r.body?.code }).toEqual({ method, p, status, code });
      expect(r.headers.get('content-type')).toContain('application/problem+json');
    }
    expect((await events()).length).toBe(n);
    // Exactly 2,000 characters is accepted.
    expect((await t.http('PUT', path(location.id), { summary: 'y'.repeat(2000) })).status).toBe(200);
  });

  it('who may see a memory does not change with its wording', async () => {
    expect((await t.http('PUT', `/v1/campaigns/${cid}/players/aria`, { name: 'Aria' })).status).toBeLessThan(300);
    // Back in the tavern, its memory is the current location's: served to those who may see it.
    await t.http('POST', `/v1/campaigns/${cid}/commands/change-location`, { toLocationId: 'tavern' });
    const sees = async (q: string) =>
      JSON.stringify((await t.http('GET', `/v1/campaigns/${cid}/context?${q}`)).body).includes(location.id);
    const viewers = ['agent=npc&viewer=mira', 'agent=player&viewer=aria', 'agent=narrative'];
    const before = await Promise.all(viewers.map(sees));
    expect(before).toContain(true);
    const put = await t.http('PUT', path(location.id), { summary: 'Something only the DM knows about the tavern.' });
    expect(put.status).toBe(200);
    expect(await Promise.all(viewers.map(sees))).toEqual(before);
  });
});
