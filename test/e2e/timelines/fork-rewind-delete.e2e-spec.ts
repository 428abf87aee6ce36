import { MemoryWorker } from '@app/memory';
import { LocationSummaryInput } from '@app/summarizer';
import { DataSource } from 'typeorm';
import { RecordingSummarizer } from '../../support/recording-summarizer';
import { idsOf, openStream } from '../../support/sse';
import { expectProblem, expectRejected } from '../../support/rejection';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

/**
 * DESIGN §10 fork, rewind and delete over HTTP (lane 4). A sample of branch equivalence (the exhaustive comparison
 * is timelines.e2e-spec.ts); the rest is what these three operations promise on their own.
 */
/** What the list routes answer, as far as these tests look at it. */
interface Item {
  id: string;
  index: number;
  version: number;
  type: string;
  data: unknown;
  recordedAt: string;
  triggerVersion: number;
  summary: string;
  inputIndexes?: number[];
}

/** Location summaries hang while `held` until released or abandoned (the worker's signal). */
class HoldingSummarizer extends RecordingSummarizer {
  held = false;
  waiting = 0;
  private release: () => void = () => undefined;

  open(): void {
    this.held = false;
    this.release();
  }

  override async summarizeLocation(input: LocationSummaryInput, signal?: AbortSignal) {
    if (this.held) {
      this.waiting++;
      await new Promise<void>((resolve, reject) => {
        this.release = resolve;
        signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      }).finally(() => this.waiting--);
    }
    return super.summarizeLocation(input, signal);
  }
}

describe('fork, rewind, delete (DESIGN §10)', () => {
  let t: TestApp;
  const summarizer = new HoldingSummarizer();
  beforeAll(async () => {
    t = await startTestApp({ summarizer });
  });
  afterAll(async () => t.close());

  const get = async (path: string) => {
    const res = await t.http('GET', path);
    if (res.status !== 200) throw new Error(`GET ${path} → ${res.status} ${res.text}`);
    return res.body;
  };
  const allMessages = async (cid: string): Promise<Item[]> =>
    (await get(`/v1/campaigns/${cid}/messages?limit=1000`)).items;
  const allMemories = async (cid: string): Promise<Item[]> =>
    (await get(`/v1/campaigns/${cid}/memories?limit=1000`)).items;
  const gameEvents = async (cid: string): Promise<Item[]> =>
    (await get(`/v1/campaigns/${cid}/events?stream=game&limit=1000`)).items;
  const memoryEvents = async (cid: string): Promise<Item[]> =>
    (await get(`/v1/campaigns/${cid}/events?stream=memory&limit=1000`)).items;
  const search = async (cid: string, q: string, where = 'messages') =>
    (await get(`/v1/campaigns/${cid}/search?q=${encodeURIComponent(q)}&in=${where}`)).items;
  const settled = (cid: string) => scenario(t, cid).settled();

  /** Two scenes in two places, so the worker writes location and NPC memories; returns the version after each. */
  async function play(cid: string): Promise<{ afterFirst: number; end: number }> {
    const s = scenario(t, cid);
    await s.create('The Drowned Road');
    await s.location('docks', 'The Docks');
    await s.location('tavern', 'The Rusty Anchor');
    await s.npc('mira', 'Mira', 'tavern', ['the barkeep']);
    await s.move('docks');
    await s.say(
      { role: 'dm', content: 'Fog rolls over the docks; a smuggler drops a lantern shaped like a heron.' },
      { role: 'player', speaker: 'Aria', content: 'Aria pockets the heron lantern and follows the smuggler.' },
    );
    await s.move('tavern');
    const afterFirst = (await s.campaign()).version;
    await s.say(
      {
        role: 'dm',
        content: 'Mira polishes a glass and mentions the drowned chapel beneath the pier.',
        npcIds: ['mira'],
      },
      { role: 'player', speaker: 'Aria', content: 'Aria asks Mira about the chapel bells.', npcIds: ['mira'] },
    );
    await s.move('docks');
    await settled(cid);
    return { afterFirst, end: (await s.campaign()).version };
  }

  const strip = (m: { id: string }) => m;

  it('fork at the head serves the parent’s messages, memories, search and events, with no model call', async () => {
    const { end } = await play('fk-root');
    const calls = summarizer.calls.length;
    const res = await t.http('POST', '/v1/campaigns/fk-root/fork', { id: 'fk-child', name: 'What if' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: 'fk-child',
      name: 'What if',
      version: end + 1,
      parent: { id: 'fk-root', version: end },
    });
    await settled('fk-child');
    expect(summarizer.calls.length).toBe(calls);

    expect(await allMessages('fk-child')).toEqual(await allMessages('fk-root'));
    const memories = await allMemories('fk-root');
    expect(memories.length).toBeGreaterThan(0);
    expect((await allMemories('fk-child')).map(strip)).toEqual(memories.map(strip));
    expect(await search('fk-child', 'heron')).toEqual(await search('fk-root', 'heron'));
    expect(await search('fk-child', 'chapel', 'memories')).toEqual(await search('fk-root', 'chapel', 'memories'));
    const parentEvents = await gameEvents('fk-root');
    const childEvents = await gameEvents('fk-child');
    expect(childEvents.slice(0, -1).map((e) => [e.version, e.type, e.data, e.recordedAt])).toEqual(
      parentEvents.map((e) => [e.version, e.type, e.data, e.recordedAt]),
    );
    expect(childEvents[childEvents.length - 1]).toMatchObject({
      type: 'CampaignForked',
      data: { parentId: 'fk-root', parentVersion: end, name: 'What if' },
    });
    const strippedMemoryEvents = (cid: string) =>
      memoryEvents(cid).then((xs) => xs.map((e) => [e.version, e.type, e.data]));
    expect(await strippedMemoryEvents('fk-child')).toEqual(await strippedMemoryEvents('fk-root'));
    const [parent, child] = [await get('/v1/campaigns/fk-root'), await get('/v1/campaigns/fk-child')];
    expect(child.cursors).toEqual(parent.cursors);
    expect(child.processedVersion).toBe(end + 1);

    // Independent: a write to the fork leaves the parent alone, and the other way round.
    await scenario(t, 'fk-child').say({ role: 'dm', content: 'Only in the fork: a gull steals the lantern.' });
    await scenario(t, 'fk-root').say({ role: 'dm', content: 'Only in the parent: the bell rings twice.' });
    expect(await search('fk-root', 'gull')).toEqual([]);
    expect(await search('fk-child', 'bell rings')).toEqual([]);
  });

  it('fork at an earlier version has the messages and memories of that version only', async () => {
    const { afterFirst } = await play('fk-early');
    const calls = summarizer.calls.length;
    const res = await t.http('POST', '/v1/campaigns/fk-early/fork', { id: 'fk-early-2', atVersion: afterFirst });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ version: afterFirst + 1, messageCount: 2, name: 'The Drowned Road' });
    const messages = await allMessages('fk-early-2');
    expect(messages.map((m) => m.index)).toEqual([0, 1]);
    expect(await search('fk-early-2', 'chapel')).toEqual([]);
    const parentMemories = await allMemories('fk-early');
    const events = await gameEvents('fk-early');
    const kept = parentMemories.filter(
      (m) => events.find((e) => e.version === m.triggerVersion) && m.triggerVersion <= afterFirst,
    );
    expect((await allMemories('fk-early-2')).map((m) => m.id).sort()).toEqual(kept.map((m) => m.id).sort());
    // The fork's own worker finishes what the parent's had done later — unless it had, which it had here: no call.
    await settled('fk-early-2');
    expect(summarizer.calls.length).toBe(calls);
  });

  it('rewind drops what came after, bumps the timeline, keeps the old head with keepAs, and grows again', async () => {
    const { afterFirst, end } = await play('rw');
    const before = { messages: await allMessages('rw'), memories: await allMemories('rw') };
    const calls = summarizer.calls.length;
    const res = await t.http('POST', '/v1/campaigns/rw/rewind', { toVersion: afterFirst, keepAs: 'rw-before' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version: afterFirst + 1, timeline: 2, keptAs: 'rw-before' });
    expect(res.body.discarded.game).toBe(end - afterFirst);
    expect(summarizer.calls.length).toBe(calls);

    expect((await allMessages('rw')).map((m) => m.index)).toEqual([0, 1]);
    expect(await search('rw', 'chapel')).toEqual([]);
    const events = await gameEvents('rw');
    expect(events.map((e) => e.version)).toEqual(Array.from({ length: afterFirst + 1 }, (_, i) => i + 1));
    expect(events[afterFirst]).toMatchObject({
      type: 'CampaignRewound',
      data: { fromVersion: end, toVersion: afterFirst, keptAs: 'rw-before' },
    });
    const timeline = (await get('/v1/campaigns/rw/timeline?limit=5')).items;
    expect(timeline[timeline.length - 1]).toMatchObject({ id: `2:game:${afterFirst + 1}`, type: 'CampaignRewound' });
    // keepAs: the whole pre-rewind campaign, as a fork at the old head.
    expect(await allMessages('rw-before')).toEqual(before.messages);
    expect((await allMemories('rw-before')).map((m) => m.id)).toEqual(before.memories.map((m) => m.id));

    // A stale If-Match (the pre-rewind head) is 412; the campaign grows again from the rewound version.
    const stale = await t.http(
      'POST',
      '/v1/campaigns/rw/messages',
      { messages: [{ role: 'dm', content: 'x' }] },
      {
        'if-match': String(end),
      },
    );
    expect(stale.status).toBe(412);
    const s = scenario(t, 'rw');
    await s.say({ role: 'dm', content: 'Instead, a storm drives everyone into the lighthouse.' });
    await s.move('docks');
    await settled('rw');
    const regrown = await allMessages('rw');
    expect(regrown.map((m) => m.index)).toEqual([0, 1, 2]);
    expect(await search('rw', 'lighthouse')).toHaveLength(1);
    const memories = await allMemories('rw');
    expect(memories.some((m) => m.summary.includes('lighthouse') || m.inputIndexes?.includes?.(2))).toBe(true);
    expect((await get('/v1/campaigns/rw')).processedVersion).toBe((await get('/v1/campaigns/rw')).version);
  });

  it('delete removes every row of the campaign in every table, leaves its forks, and a second delete is 404', async () => {
    await play('del');
    expect((await t.http('POST', '/v1/campaigns/del/fork', { id: 'del-fork' })).status).toBe(201);
    await t.http(
      'POST',
      '/v1/campaigns/del/messages',
      { messages: [{ role: 'dm', content: 'keyed' }] },
      {
        'idempotency-key': 'k-del-1',
      },
    );
    const forkMessages = await allMessages('del-fork');
    const res = await t.http('DELETE', '/v1/campaigns/del');
    expect(res.status).toBe(204);
    expectProblem(await t.http('DELETE', '/v1/campaigns/del'), 404, 'CAMPAIGN_NOT_FOUND');
    expectProblem(await t.http('GET', '/v1/campaigns/del'), 404, 'CAMPAIGN_NOT_FOUND');
    expect(await allMessages('del-fork')).toEqual(forkMessages);

    const ds = t.app.get(DataSource);
    const leftovers: string[] = [];
    const count = async (text: string, params: unknown[]) =>
      Number((await ds.query(ds.options.type === 'postgres' ? text.replace('?', '$1') : text, params))[0].n);
    // Every mapped table, from the entity metadata: a table added later cannot be forgotten here.
    for (const meta of ds.entityMetadatas) {
      const columns = meta.columns.map((c) => c.databaseName);
      const key = ['campaign_id', 'stream_id', 'scope'].find((c) => columns.includes(c)) ?? 'id';
      if (key === 'id' && meta.tableName !== 'campaigns') continue;
      const values = key === 'stream_id' ? ['campaign-del', 'memory-del'] : ['del'];
      for (const v of values) {
        const n = await count(`SELECT COUNT(*) AS n FROM "${meta.tableName}" WHERE "${key}" = ?`, [v]);
        if (n > 0) leftovers.push(`${meta.tableName}: ${n}`);
      }
    }
    // Tables no entity maps: the usage ledger, and the search index's own.
    const usage = await count('SELECT COUNT(*) AS n FROM model_calls WHERE campaign_id = ?', ['del']);
    if (usage > 0) leftovers.push(`model_calls: ${usage}`);
    if (ds.options.type !== 'postgres') {
      const n = await count('SELECT COUNT(*) AS n FROM search_campaigns WHERE campaign_id = ?', ['del']);
      if (n > 0) leftovers.push(`search_campaigns: ${n}`);
    } else {
      for (const table of ['search_messages', 'search_reasoning', 'search_memories']) {
        const n = await count(`SELECT COUNT(*) AS n FROM ${table} WHERE campaign_id = ?`, ['del']);
        if (n > 0) leftovers.push(`${table}: ${n}`);
      }
    }
    expect(leftovers).toEqual([]);
    // The id is free again.
    expect((await t.http('POST', '/v1/campaigns', { id: 'del', name: 'Again' })).status).toBe(201);
  });

  it('bad input is a 4xx problem with the §10 code and appends nothing', async () => {
    const s = scenario(t, 'bad');
    await s.create('Bad input');
    await s.say({ role: 'dm', content: 'One line.' });
    const { version } = await s.campaign();
    const post = (path: string, body: unknown, headers?: Record<string, string>) => () =>
      t.http('POST', `/v1/campaigns/bad${path}`, body, headers);
    expectProblem(await t.http('POST', '/v1/campaigns/no-such/fork', {}), 404, 'CAMPAIGN_NOT_FOUND');
    expectProblem(await t.http('POST', '/v1/campaigns/no-such/rewind', { toVersion: 1 }), 404, 'CAMPAIGN_NOT_FOUND');
    expectProblem(await t.http('DELETE', '/v1/campaigns/no-such'), 404, 'CAMPAIGN_NOT_FOUND');
    for (const atVersion of [0, -1, version + 1])
      await expectRejected(t, 'bad', 400, 'INVALID_VERSION', post('/fork', { id: 'bad-f', atVersion }));
    for (const toVersion of [0, version + 1])
      await expectRejected(t, 'bad', 400, 'INVALID_VERSION', post('/rewind', { toVersion }));
    await expectRejected(t, 'bad', 409, 'CAMPAIGN_EXISTS', post('/fork', { id: 'bad' }));
    await s.campaign();
    await scenario(t, 'bad-other').create('Other');
    await expectRejected(t, 'bad', 409, 'CAMPAIGN_EXISTS', post('/fork', { id: 'bad-other' }));
    await expectRejected(t, 'bad', 409, 'CAMPAIGN_EXISTS', post('/rewind', { toVersion: 1, keepAs: 'bad-other' }));
    await expectRejected(t, 'bad', 400, 'VALIDATION_FAILED', post('/fork', { id: 'has space' }));
    await expectRejected(t, 'bad', 400, 'VALIDATION_FAILED', post('/rewind', { toVersion: '1' }));
    await expectRejected(t, 'bad', 400, 'VALIDATION_FAILED', post('/rewind', { toVersion: 1, extra: true }));
    await expectRejected(t, 'bad', 412, 'VERSION_MISMATCH', post('/rewind', { toVersion: 1 }, { 'if-match': '1' }));
    expectProblem(await t.http('GET', '/v1/campaigns/bad-f'), 404, 'CAMPAIGN_NOT_FOUND');
    expect((await gameEvents('bad')).length).toBe(version);
    expect((await gameEvents('bad-other')).length).toBe(1);
  });

  it('a fork with an Idempotency-Key replays its answer and forks once; rewind to the head is a no-op', async () => {
    const s = scenario(t, 'idem');
    await s.create('Idem');
    await s.say({ role: 'dm', content: 'A line.' });
    const headers = { 'idempotency-key': 'fork-once' };
    const first = await t.http('POST', '/v1/campaigns/idem/fork', { name: 'Once' }, headers);
    const again = await t.http('POST', '/v1/campaigns/idem/fork', { name: 'Once' }, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const list = (await get('/v1/campaigns?limit=1000')).items.map((c: { id: string }) => c.id);
    expect(list.filter((id: string) => id === first.body.id)).toHaveLength(1);
    const { version } = await s.campaign();
    const noop = await t.http('POST', '/v1/campaigns/idem/rewind', { toVersion: version });
    expect(noop.body).toEqual({ version, timeline: 1, discarded: { game: 0, memory: 0 }, keptAs: null });
    expect((await gameEvents('idem')).length).toBe(version);
  });

  it('the event stream says rewound, goes on in the new timeline, and maps a resume id of the old one', async () => {
    const s = scenario(t, 'sse-rw');
    await s.create('Stream');
    await s.say({ role: 'dm', content: 'one' }, { role: 'dm', content: 'two' });
    await s.say({ role: 'dm', content: 'three' });
    const head = (await s.campaign()).version;
    const live = openStream(t.url, 'sse-rw');
    await live.until((ev) => idsOf(ev).includes(`1:game:${head}`));
    expect((await t.http('POST', '/v1/campaigns/sse-rw/rewind', { toVersion: 2 })).status).toBe(200);
    await s.say({ role: 'dm', content: 'four, again' });
    const events = await live.until((ev) => idsOf(ev).includes('2:game:4'));
    live.close();
    const rewound = events.find((e) => e.event === 'rewound');
    expect(rewound?.data).toEqual({ timeline: 2, fromVersion: head, toVersion: 2 });
    expect(idsOf(events.slice(events.indexOf(rewound!)))).toEqual(['2:game:3', '2:game:4']);
    // A listener that last saw the old head resumes in the new timeline, told of the rewind first.
    const resumed = openStream(t.url, 'sse-rw', { after: `1:game:${head}` });
    const again = await resumed.until((ev) => idsOf(ev).includes('2:game:4'));
    resumed.close();
    expect(again[0]).toMatchObject({ event: 'rewound', data: { timeline: 2 } });
    expect(idsOf(again)).toEqual(['2:game:3', '2:game:4']);
    // An id of a timeline that never existed is still refused.
    expect((await t.http('GET', '/v1/campaigns/sse-rw/stream?after=3:game:1')).status).toBe(400);
  });

  describe('a summary in flight commits nothing', () => {
    const waitFor = async (ok: () => boolean) => {
      for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
      if (!ok()) throw new Error('timed out');
    };

    async function holdASummary(cid: string): Promise<number> {
      const s = scenario(t, cid);
      await s.create('Held');
      await s.location('a', 'Alpha');
      await s.location('b', 'Beta');
      await s.move('a');
      await s.say({ role: 'dm', content: 'The alpha gate creaks open onto a field of glass.' });
      await settled(cid);
      const before = (await s.campaign()).version;
      summarizer.held = true;
      await s.move('b');
      await waitFor(() => summarizer.waiting > 0);
      return before;
    }

    afterEach(() => summarizer.open());

    it('rewound under it: nothing of the old timeline is committed, the worker does the new one', async () => {
      const before = await holdASummary('held-rw');
      const res = await t.http('POST', '/v1/campaigns/held-rw/rewind', { toVersion: before });
      expect(res.status).toBe(200);
      summarizer.open();
      await t.app.get(MemoryWorker).idle();
      await settled('held-rw');
      expect(await memoryEvents('held-rw')).toEqual([]);
      expect(await allMemories('held-rw')).toEqual([]);
      const c = await get('/v1/campaigns/held-rw');
      expect(c.processedVersion).toBe(before + 1);
    });

    it('deleted under it: no row of it comes back', async () => {
      await holdASummary('held-del');
      expect((await t.http('DELETE', '/v1/campaigns/held-del')).status).toBe(204);
      summarizer.open();
      await t.app.get(MemoryWorker).idle();
      const ds = t.app.get(DataSource);
      const q = (text: string) =>
        ds.query(ds.options.type === 'postgres' ? text.replace('?', '$1') : text, ['held-del']);
      expect(await q('SELECT * FROM memory_checkpoints WHERE campaign_id = ?')).toEqual([]);
      expect(await q('SELECT * FROM memories WHERE campaign_id = ?')).toEqual([]);
      expect(await q("SELECT * FROM events WHERE stream_id = 'memory-' || ?")).toEqual([]);
      expectProblem(await t.http('GET', '/v1/campaigns/held-del'), 404, 'CAMPAIGN_NOT_FOUND');
    });
  });
});
