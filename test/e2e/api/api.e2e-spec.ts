import { MockAnthropic, startMockAnthropic } from '../../support/mock-anthropic';
import { eventually, scopeOf } from '../../support/mock-requests';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

const line = (content: string, extra: Record<string, unknown> = {}) => ({
  role: 'player',
  speaker: 'Aria',
  content,
  ...extra,
});

// jest ignores the e2e project's testTimeout (a global option): booting apps inside a test needs more than 5 s cold.
jest.setTimeout(60_000);

describe('REST API over HTTP (listings, context, Idempotency-Key, If-Match, concurrency)', () => {
  let mock: MockAnthropic;
  let t: TestApp;

  beforeAll(async () => {
    mock = await startMockAnthropic();
    // Summaries name the indexes they were given, so tests can tell memories apart.
    t = await startTestApp({
      env: { SUMMARIZER: 'anthropic', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: mock.baseUrl },
    });
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
  });
  beforeEach(() => {
    mock.reset();
    mock.setHandler((body) => ({ text: `Memory of ${scopeOf(body).indexes.join(',')}.` }));
  });

  const get = async (path: string) => {
    const res = await t.http('GET', path);
    expect(res.status).toBe(200);
    return res.body;
  };

  /** A campaign that went tavern → docks → tavern → docks → tavern, one message per stay: four location memories. */
  async function travelled(id: string) {
    const s = scenario(t, id);
    await s.create('Saga');
    await s.location('tavern', 'Rusty Anchor');
    await s.location('docks', 'Docks');
    await s.move('tavern');
    for (const [i, to] of ['docks', 'tavern', 'docks', 'tavern'].entries()) {
      await s.say(line(`Stay ${i}.`));
      await s.move(to);
    }
    await s.settled();
    return s;
  }

  describe('GET memories', () => {
    beforeAll(async () => {
      mock.setHandler((body) => ({ text: `Memory of ${scopeOf(body).indexes.join(',')}.` }));
      await travelled('api-mem');
    });

    it('lists newest first with every field', async () => {
      const { items } = await get('/v1/campaigns/api-mem/memories');
      expect(items.map((m: any) => [m.subjectId, m.summary])).toEqual([
        ['docks', 'Memory of 3.'],
        ['tavern', 'Memory of 2.'],
        ['docks', 'Memory of 1.'],
        ['tavern', 'Memory of 0.'],
      ]);
      expect(Object.keys(items[0]).sort()).toEqual(
        [
          'createdAt',
          'encounterId',
          'id',
          'locationId',
          'npcIds',
          'origin',
          'questId',
          'revision',
          'scope',
          'sinceMessageIndex',
          'sinceTimestamp',
          'subjectId',
          'summary',
          'tags',
          'throughMessageIndex',
          'triggerVersion',
        ].sort(),
      );
      // §10: as recorded, by the model.
      expect(items.map((m: any) => [m.revision, m.origin])).toContainEqual([1, 'model']);
      const versions = items.map((m: any) => m.triggerVersion);
      expect([...versions].sort((a, b) => b - a)).toEqual(versions);
    });

    it('filters by scope and subjectId', async () => {
      expect(
        (await get('/v1/campaigns/api-mem/memories?scope=location&subjectId=tavern')).items.map((m: any) => m.summary),
      ).toEqual(['Memory of 2.', 'Memory of 0.']);
      expect((await get('/v1/campaigns/api-mem/memories?scope=npc')).items).toEqual([]);
      expect((await get('/v1/campaigns/api-mem/memories?scope=world')).items).toEqual([]);
    });

    it('pages with limit and before (the id of the last item seen), without overlap', async () => {
      const all = (await get('/v1/campaigns/api-mem/memories')).items.map((m: any) => m.id);
      const seen: string[] = [];
      let before = '';
      for (;;) {
        const page = (
          await get(`/v1/campaigns/api-mem/memories?limit=3${before ? `&before=${encodeURIComponent(before)}` : ''}`)
        ).items;
        expect(page.length).toBeLessThanOrEqual(3);
        if (page.length === 0) break;
        seen.push(...page.map((m: any) => m.id));
        before = page[page.length - 1].id;
      }
      expect(seen).toEqual(all);
      expect(
        (
          await get(
            `/v1/campaigns/api-mem/memories?scope=location&subjectId=docks&before=${encodeURIComponent(all[0])}`,
          )
        ).items.map((m: any) => m.id),
      ).toEqual([all[2]]);
    });
  });

  describe('GET events', () => {
    it('lists the game stream oldest first, with after and limit', async () => {
      const s = scenario(t, 'api-events');
      await s.create('Saga');
      await s.location('tavern', 'Rusty Anchor');
      await s.location('docks', 'Docks');
      await s.move('tavern');
      await s.say(line('hello'));
      const all = (await get('/v1/campaigns/api-events/events')).items;
      expect(all.map((e: any) => [e.version, e.type])).toEqual([
        [1, 'CampaignCreated'],
        [2, 'LocationRegistered'],
        [3, 'LocationRegistered'],
        [4, 'LocationChanged'],
        [5, 'MessageRecorded'],
      ]);
      expect(Object.keys(all[0]).sort()).toEqual(['data', 'metadata', 'recordedAt', 'type', 'version']);
      expect(all[3].data).toEqual({ fromLocationId: null, toLocationId: 'tavern', npcsPresent: [] });
      expect((await get('/v1/campaigns/api-events/events?after=2')).items.map((e: any) => e.version)).toEqual([
        3, 4, 5,
      ]);
      expect((await get('/v1/campaigns/api-events/events?after=1&limit=2')).items.map((e: any) => e.version)).toEqual([
        2, 3,
      ]);
      expect((await get('/v1/campaigns/api-events/events?stream=game&after=5')).items).toEqual([]);
    });

    it('records the request id as correlationId and the Idempotency-Key in the metadata', async () => {
      await scenario(t, 'api-meta').create('Saga');
      const res = await t.http(
        'PUT',
        '/v1/campaigns/api-meta/locations/tavern',
        { name: 'Tavern' },
        { 'x-request-id': 'req-42', 'idempotency-key': 'key-42' },
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toBe('req-42');
      const [created, registered] = (await get('/v1/campaigns/api-meta/events')).items;
      expect(registered.metadata).toEqual({ correlationId: 'req-42', idempotencyKey: 'key-42' });
      expect(created.metadata).toEqual({ correlationId: expect.any(String) });
      expect(created.metadata.idempotencyKey).toBeUndefined();
    });

    it('lists the memory stream with stream=memory; its events point at their trigger', async () => {
      await travelled('api-memstream');
      const game = (await get('/v1/campaigns/api-memstream/events?limit=1000')).items;
      const memory = (await get('/v1/campaigns/api-memstream/events?stream=memory')).items;
      expect(memory.map((e: any) => [e.version, e.type])).toEqual([
        [1, 'MemoryRecorded'],
        [2, 'MemoryRecorded'],
        [3, 'MemoryRecorded'],
        [4, 'MemoryRecorded'],
      ]);
      for (const e of memory) {
        const trigger = game.find((g: any) => g.version === e.data.triggerVersion);
        expect(trigger.type).toBe('LocationChanged');
        expect(e.metadata).toEqual({
          correlationId: trigger.metadata.correlationId,
          causationId: `campaign-api-memstream@${trigger.version}`,
        });
      }
      expect(
        (await get('/v1/campaigns/api-memstream/events?stream=memory&after=2&limit=1')).items.map(
          (e: any) => e.version,
        ),
      ).toEqual([3]);
    });
  });

  describe('GET messages', () => {
    beforeAll(async () => {
      const s = scenario(t, 'api-msg');
      await s.create('Saga');
      await s.location('tavern', 'Rusty Anchor');
      await s.location('docks', 'Docks');
      await s.npc('mira', 'Mira', 'tavern');
      await s.move('tavern');
      await s.say(
        line('m0'),
        { role: 'npc', speaker: 'Mira', content: 'm1', npcIds: ['mira'], at: '1042-05-01T08:00:00.000Z' },
        line('m2', { locationId: 'docks' }),
        line('m3', { locationId: null }),
        line('m4'),
      );
    });

    it('lists messages oldest first with every field and its defaults', async () => {
      const { items } = await get('/v1/campaigns/api-msg/messages');
      expect(items.map((m: any) => [m.index, m.content, m.locationId])).toEqual([
        [0, 'm0', 'tavern'],
        [1, 'm1', 'tavern'],
        [2, 'm2', 'docks'],
        [3, 'm3', null],
        [4, 'm4', 'tavern'],
      ]);
      expect(items[1]).toEqual({
        index: 1,
        role: 'npc',
        speaker: 'Mira',
        content: 'm1',
        locationId: 'tavern',
        npcIds: ['mira'],
        at: '1042-05-01T08:00:00.000Z',
        round: 1,
        visibility: 'public',
        audience: [],
        toolCalls: [],
        toolCallId: null,
        reasoning: null,
      });
    });

    it('honours after (exclusive), limit and locationId', async () => {
      const indexes = async (q: string) =>
        (await get(`/v1/campaigns/api-msg/messages${q}`)).items.map((m: any) => m.index);
      expect(await indexes('?after=1')).toEqual([2, 3, 4]);
      expect(await indexes('?after=-1&limit=2')).toEqual([0, 1]);
      expect(await indexes('?after=0&limit=2')).toEqual([1, 2]);
      expect(await indexes('?locationId=tavern')).toEqual([0, 1, 4]);
      expect(await indexes('?locationId=tavern&after=0&limit=1')).toEqual([1]);
      expect(await indexes('?locationId=docks')).toEqual([2]);
      expect(await indexes('?after=4')).toEqual([]);
    });
  });

  describe('GET context', () => {
    beforeAll(async () => {
      const s = await travelled('api-ctx'); // tavern memories of 0 and 2; the party is at the tavern
      await s.say(line('Stay 4.'));
      await s.move('docks');
      await s.move('tavern');
      await s.say(line('Stay 5.'));
      await s.move('docks');
      await s.move('tavern');
      await s.settled();
    });

    it('JSON is the §2 shape: version, processedVersion and the three sections, last 3 oldest → newest', async () => {
      const body = await get('/v1/campaigns/api-ctx/context');
      expect(Object.keys(body).sort()).toEqual(['processedVersion', 'sections', 'version']);
      expect(body.processedVersion).toBe(body.version);
      expect(body.sections.map((s: any) => s.title)).toEqual(['Recent Location Memory', 'NPC Memory', 'World Memory']);
      expect(body.sections[0].entries.map((e: any) => e.text.replace(/^- round 1 — /, ''))).toEqual([
        'Memory of 2.',
        'Memory of 4.',
        'Memory of 5.',
      ]);
      expect(body.sections[1].entries).toEqual([]);
    });

    it('text is `## <title>` and one-line bullets, empty sections left out; limit picks the last N', async () => {
      const res = await t.http('GET', '/v1/campaigns/api-ctx/context?format=text&limit=2');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(res.text).toMatch(/^## Recent Location Memory\n- round 1 — Memory of 4\.\n- round 1 — Memory of 5\.\n$/);
      const one = (await t.http('GET', '/v1/campaigns/api-ctx/context?limit=1')).body;
      expect(one.sections[0].entries).toHaveLength(1);
    });

    it('minVersion + waitMs waits for the worker to catch up (read-your-writes)', async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      mock.setHandler(async (body) => {
        await gate;
        return { text: `Memory of ${scopeOf(body).indexes.join(',')}.` };
      });
      const s = scenario(t, 'api-ctx');
      await s.say(line('Stay 6.'));
      const { version } = await s.move('docks');
      await eventually(() => mock.requests.length === 1);

      const now = (await get(`/v1/campaigns/api-ctx/context?minVersion=${version}&waitMs=0`)).processedVersion;
      expect(now).toBeLessThan(version);
      const gaveUp = await get(`/v1/campaigns/api-ctx/context?minVersion=${version}&waitMs=50`);
      expect(gaveUp.processedVersion).toBeLessThan(version);

      const waiting = t.http('GET', `/v1/campaigns/api-ctx/context?minVersion=${version}&waitMs=10000&format=json`);
      release();
      const res = await waiting;
      expect(res.status).toBe(200);
      expect(res.body.processedVersion).toBeGreaterThanOrEqual(version);
      const [newest] = (await get('/v1/campaigns/api-ctx/memories?scope=location&subjectId=tavern&limit=1')).items;
      expect([newest.triggerVersion, newest.summary]).toEqual([version, 'Memory of 6.']);
    });
  });

  describe('Idempotency-Key', () => {
    const cid = 'api-idem';
    beforeAll(async () => {
      const s = scenario(t, cid);
      await s.create('Saga');
      await s.location('tavern', 'Rusty Anchor');
      await s.location('docks', 'Docks');
    });
    const version = async () => (await get(`/v1/campaigns/${cid}`)).version;
    const eventCount = async () => (await get(`/v1/campaigns/${cid}/events?limit=1000`)).items.length;

    it('the same key and body return the first response, marked as replayed, appending nothing', async () => {
      const body = { messages: [line('Once only.')] };
      const first = await t.http('POST', `/v1/campaigns/${cid}/messages`, body, { 'idempotency-key': 'say-1' });
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const v = await version();
      const n = await eventCount();
      await scenario(t, cid).say(line('Something else in between.'));
      const again = await t.http('POST', `/v1/campaigns/${cid}/messages`, body, { 'idempotency-key': 'say-1' });
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await version()).toBe(v + 1);
      expect(await eventCount()).toBe(n + 1);
      expect(
        (await get(`/v1/campaigns/${cid}/messages`)).items.filter((m: any) => m.content === 'Once only.'),
      ).toHaveLength(1);
    });

    it('works the same for commands and PUTs (202 / 200 replayed)', async () => {
      const move = await t.http(
        'POST',
        `/v1/campaigns/${cid}/commands/change-location`,
        { toLocationId: 'docks' },
        { 'idempotency-key': 'move-1' },
      );
      expect(move.status).toBe(202);
      const v = await version();
      const again = await t.http(
        'POST',
        `/v1/campaigns/${cid}/commands/change-location`,
        { toLocationId: 'docks' },
        { 'idempotency-key': 'move-1' },
      );
      expect([again.status, again.body, again.headers.get('idempotent-replayed')]).toEqual([202, move.body, 'true']);
      const put = await t.http(
        'PUT',
        `/v1/campaigns/${cid}/npcs/mira`,
        { name: 'Mira' },
        { 'idempotency-key': 'npc-1' },
      );
      const putAgain = await t.http(
        'PUT',
        `/v1/campaigns/${cid}/npcs/mira`,
        { name: 'Mira' },
        { 'idempotency-key': 'npc-1' },
      );
      expect([putAgain.status, putAgain.body, putAgain.headers.get('idempotent-replayed')]).toEqual([
        200,
        put.body,
        'true',
      ]);
      expect(await version()).toBe(v + 1);
    });

    it('the same key with a different body or another endpoint is 422 IDEMPOTENCY_KEY_REUSED, appending nothing', async () => {
      await t.http('POST', `/v1/campaigns/${cid}/messages`, { messages: [line('A')] }, { 'idempotency-key': 'say-2' });
      const v = await version();
      const n = await eventCount();
      const changed = await t.http(
        'POST',
        `/v1/campaigns/${cid}/messages`,
        { messages: [line('B')] },
        { 'idempotency-key': 'say-2' },
      );
      expect(changed.status).toBe(422);
      expect(changed.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(changed.body).toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
      const elsewhere = await t.http(
        'PUT',
        `/v1/campaigns/${cid}/locations/crypt`,
        { name: 'Crypt' },
        { 'idempotency-key': 'say-2' },
      );
      expect(elsewhere.body).toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
      expect([await version(), await eventCount()]).toEqual([v, n]);
    });

    it('keys are per campaign, and creating a campaign can be replayed too', async () => {
      const a = await t.http(
        'POST',
        '/v1/campaigns',
        { id: 'api-idem-new', name: 'New' },
        { 'idempotency-key': 'create-1' },
      );
      expect(a.status).toBe(201);
      const b = await t.http(
        'POST',
        '/v1/campaigns',
        { id: 'api-idem-new', name: 'New' },
        { 'idempotency-key': 'create-1' },
      );
      expect([b.status, b.body, b.headers.get('idempotent-replayed')]).toEqual([201, a.body, 'true']);
      const c = await t.http(
        'POST',
        '/v1/campaigns',
        { id: 'api-idem-other', name: 'Other' },
        { 'idempotency-key': 'create-1' },
      );
      expect(c.body).toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
      // The key "say-1" of the other campaign is free here.
      const other = await t.http(
        'POST',
        '/v1/campaigns/api-idem-new/messages',
        { messages: [line('Once only.')] },
        { 'idempotency-key': 'say-1' },
      );
      expect(other.status).toBe(201);
      expect(other.headers.get('idempotent-replayed')).toBeNull();
    });

    it('a request that failed is not remembered: the same key can be used once it is valid', async () => {
      const bad = await t.http(
        'POST',
        `/v1/campaigns/${cid}/commands/complete-quest`,
        { questId: 'later' },
        { 'idempotency-key': 'q-1' },
      );
      expect(bad.status).toBe(404);
      await t.http('PUT', `/v1/campaigns/${cid}/quests/later`, { name: 'Later', objectives: [] });
      const good = await t.http(
        'POST',
        `/v1/campaigns/${cid}/commands/complete-quest`,
        { questId: 'later' },
        { 'idempotency-key': 'q-1' },
      );
      expect(good.status).toBe(202);
    });
  });

  describe('If-Match', () => {
    const cid = 'api-ifmatch';
    beforeAll(async () => {
      const s = scenario(t, cid);
      await s.create('Saga');
      await s.location('tavern', 'Rusty Anchor');
    });
    const version = async () => (await get(`/v1/campaigns/${cid}`)).version;

    it('a stale version is 412 VERSION_MISMATCH and appends nothing', async () => {
      const v = await version();
      const res = await t.http(
        'POST',
        `/v1/campaigns/${cid}/messages`,
        { messages: [line('x')] },
        { 'if-match': String(v - 1) },
      );
      expect(res.status).toBe(412);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 412, code: 'VERSION_MISMATCH' });
      expect(await version()).toBe(v);
    });

    it('the current version succeeds, also quoted or weak', async () => {
      let v = await version();
      const a = await t.http(
        'POST',
        `/v1/campaigns/${cid}/messages`,
        { messages: [line('x')] },
        { 'if-match': String(v) },
      );
      expect(a.status).toBe(201);
      expect(a.body.version).toBe(v + 1);
      v = a.body.version;
      expect(
        (
          await t.http(
            'POST',
            `/v1/campaigns/${cid}/commands/change-location`,
            { toLocationId: 'tavern' },
            { 'if-match': `"${v}"` },
          )
        ).status,
      ).toBe(202);
      expect(
        (await t.http('PUT', `/v1/campaigns/${cid}/locations/docks`, { name: 'Docks' }, { 'if-match': `W/"${v + 1}"` }))
          .status,
      ).toBe(200);
      expect(await version()).toBe(v + 2);
    });

    it('concurrent writes at the same If-Match: exactly one succeeds, the others get 412', async () => {
      const v = await version();
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          t.http('POST', `/v1/campaigns/${cid}/messages`, { messages: [line(`race ${i}`)] }, { 'if-match': String(v) }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 412, 412, 412, 412, 412]);
      expect(await version()).toBe(v + 1);
    });
  });

  it('concurrent writes without If-Match all succeed, with gapless versions and message indexes', async () => {
    const s = scenario(t, 'api-concurrent');
    await s.create('Saga');
    await s.location('tavern', 'Rusty Anchor');
    const start = (await s.campaign()).version;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.http('POST', '/v1/campaigns/api-concurrent/messages', { messages: [line(`m${i}`), line(`m${i}b`)] }),
      ),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    const versions = results.map((r) => r.body.version).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: 20 }, (_, i) => start + 2 * (i + 1)));
    const indexes = results.flatMap((r) => r.body.indexes).sort((a: number, b: number) => a - b);
    expect(indexes).toEqual(Array.from({ length: 40 }, (_, i) => i));
    const events = (await s.campaign()).version;
    expect(events).toBe(start + 40);
    const all = (await get('/v1/campaigns/api-concurrent/events?limit=1000')).items.map((e: any) => e.version);
    expect(all).toEqual(Array.from({ length: start + 40 }, (_, i) => i + 1));
  });
});
