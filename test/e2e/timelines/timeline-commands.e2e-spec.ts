import { LorekeeperClient, LorekeeperError } from '@app/client';
import { expectProblem, expectRejected } from '../../support/rejection';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

const ADMIN = 'admin-token-0123456789abcdef';
const ARIA = 'aria-token-0123456789abcdef';
const KEYS = `${ADMIN}, ${ARIA}=tc*@player:aria`;
const as = (token: string) => ({ authorization: `Bearer ${token}` });

jest.setTimeout(90_000);

/**
 * The HTTP contract of DESIGN §10's commands (lane 5): retract, correct and delete a memory, a memory's history,
 * If-Match `<timeline>:<version>` and the ETag of writes. Each rejection is problem+json with its code and appends
 * nothing. What the projections make of the events (withheld, revised, history rows) is asserted where those
 * projections are tested; here: the status, the body, the headers and the appended game event.
 */
describe('timeline commands over HTTP: retract, correct, delete, history', () => {
  let t: TestApp;
  const cid = 'tc';
  const admin = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    t.http(method, `/v1/campaigns/${cid}${path}`, body, { ...as(ADMIN), ...headers });
  const lastEvent = async () => {
    const { body } = await admin('GET', '/events?stream=game&limit=1000');
    return body.items[body.items.length - 1];
  };
  const version = async () => (await admin('GET', '')).body.version as number;
  let memoryId: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { LOREKEEPER_API_KEYS: KEYS } });
    const s = scenario({ ...t, http: (m, p, b, h) => t.http(m, p, b, { ...as(ADMIN), ...h }) }, cid);
    await s.create('Timeline commands');
    await s.location('tavern', 'The Rusty Anchor');
    await s.location('docks', 'The Docks');
    await s.npc('mira', 'Mira', 'tavern');
    await s.move('tavern');
    await s.say(
      { role: 'dm', content: 'The tavern is warm; Mira polishes a mug.' },
      { role: 'player', speaker: 'Aria', content: 'Mira, who owes you money?' },
      { role: 'npc', speaker: 'Mira', content: 'Brannoc owes me 30 gold. Bring it by Friday.' },
      { role: 'dm', content: 'A secret note for the dm only.', visibility: 'dm' },
    );
    await s.move('docks');
    await s.settled();
    const memories = await s.memories('?scope=location&subjectId=tavern');
    expect(memories.items.length).toBeGreaterThan(0);
    memoryId = memories.items[0].id;
  });
  afterAll(async () => t.close());

  describe('POST /messages/retract', () => {
    const retract = (body: unknown, headers: Record<string, string> = {}) =>
      admin('POST', '/messages/retract', body, headers);

    it.each([
      ['no indexes', { indexes: [] }],
      ['a repeated index', { indexes: [1, 1] }],
      ['a negative index', { indexes: [-1] }],
      ['a fractional index', { indexes: [0.5] }],
      ['501 indexes', { indexes: Array.from({ length: 501 }, (_, i) => i) }],
      ['a reason over 500 characters', { indexes: [1], reason: 'x'.repeat(501) }],
      ['an unknown field', { indexes: [1], why: 'x' }],
      ['no body', undefined],
    ])('refuses %s with 400 VALIDATION_FAILED and appends nothing', async (_what, body) => {
      await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () => retract(body), as(ADMIN));
    });

    it('refuses an index no message has with 404 MESSAGE_NOT_FOUND, all or nothing', async () => {
      await expectRejected(t, cid, 404, 'MESSAGE_NOT_FOUND', () => retract({ indexes: [1, 4] }), as(ADMIN));
    });

    it('answers 404 CAMPAIGN_NOT_FOUND for an unknown campaign', async () => {
      const res = await t.http('POST', '/v1/campaigns/nope/messages/retract', { indexes: [0] }, as(ADMIN));
      expectProblem(res, 404, 'CAMPAIGN_NOT_FOUND');
    });

    it('refuses a stale If-Match with 412 and appends nothing', async () => {
      await expectRejected(
        t,
        cid,
        412,
        'VERSION_MISMATCH',
        () => retract({ indexes: [2] }, { 'if-match': '"1:1"' }),
        as(ADMIN),
      );
      await expectRejected(
        t,
        cid,
        412,
        'VERSION_MISMATCH',
        () => retract({ indexes: [2] }, { 'if-match': '"2:1"' }),
        as(ADMIN),
      );
    });

    it('is 403 for a viewer-bound (read-only) key', async () => {
      const res = await t.http('POST', `/v1/campaigns/${cid}/messages/retract`, { indexes: [2] }, as(ARIA));
      expectProblem(res, 403, 'VIEWER_BOUND');
    });

    it('swipe: retracts the last reply with If-Match, answers 202 {version, timeline} and an ETag', async () => {
      const before = await version();
      const res = await retract({ indexes: [2], reason: ' regenerated ' }, { 'if-match': `"1:${before}"` });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ version: before + 1, timeline: 1 });
      expect(res.headers.get('etag')).toBe(`"1:${before + 1}"`);
      expect(await lastEvent()).toMatchObject({
        version: before + 1,
        type: 'MessagesRetracted',
        data: { indexes: [2], reason: 'regenerated' },
      });
      // The new reply goes in with the ETag the retraction answered.
      const next = await admin(
        'POST',
        '/messages',
        { messages: [{ role: 'npc', speaker: 'Mira', content: 'Nobody owes me a thing, love.' }] },
        { 'if-match': res.headers.get('etag')! },
      );
      expect(next.status).toBe(201);
      expect(next.body).toEqual({ indexes: [4], version: before + 2 });
      expect(next.headers.get('etag')).toBe(`"1:${before + 2}"`);
    });

    it('refuses to retract a message twice with 409 MESSAGE_RETRACTED (needs the messages projection)', async () => {
      await expectRejected(t, cid, 409, 'MESSAGE_RETRACTED', () => retract({ indexes: [0, 2] }), as(ADMIN));
    });
  });

  describe('PUT /memories/:memoryId', () => {
    const correct = (id: string, body: unknown, headers: Record<string, string> = {}) =>
      admin('PUT', `/memories/${encodeURIComponent(id)}`, body, headers);

    it.each([
      ['an empty summary', { summary: '' }],
      ['a summary of only spaces', { summary: '  \n ' }],
      ['a summary over 2,000 characters', { summary: 'x'.repeat(2_001) }],
      ['a missing summary', {}],
      ['an unknown field', { summary: 'ok', locked: false }],
    ])('refuses %s with 400 VALIDATION_FAILED and appends nothing', async (_what, body) => {
      await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () => correct(memoryId, body), as(ADMIN));
    });

    it('answers 404 MEMORY_NOT_FOUND for an unknown memory and CAMPAIGN_NOT_FOUND for an unknown campaign', async () => {
      await expectRejected(
        t,
        cid,
        404,
        'MEMORY_NOT_FOUND',
        () => correct('tc:1:location:nowhere', { summary: 'x' }),
        as(ADMIN),
      );
      const res = await t.http('PUT', `/v1/campaigns/nope/memories/${memoryId}`, { summary: 'x' }, as(ADMIN));
      expectProblem(res, 404, 'CAMPAIGN_NOT_FOUND');
    });

    it('refuses a memory id over 600 characters with 400 INVALID_ID', async () => {
      await expectRejected(t, cid, 400, 'INVALID_ID', () => correct('m'.repeat(601), { summary: 'x' }), as(ADMIN));
    });

    it('is 403 for a viewer-bound key', async () => {
      const res = await t.http('PUT', `/v1/campaigns/${cid}/memories/${memoryId}`, { summary: 'x' }, as(ARIA));
      expectProblem(res, 403, 'VIEWER_BOUND');
    });

    it('records the correction as written (trimmed): 200 the memory, origin dm, locked, and an ETag', async () => {
      const before = await version();
      const res = await correct(memoryId, { summary: '  Mira lied: nobody owes her anything.  ' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: memoryId,
        scope: 'location',
        subjectId: 'tavern',
        summary: 'Mira lied: nobody owes her anything.',
        origin: 'dm',
        locked: true,
        version: before + 1,
        timeline: 1,
      });
      expect(res.headers.get('etag')).toBe(`"1:${before + 1}"`);
      expect(await lastEvent()).toMatchObject({
        type: 'MemoryCorrected',
        data: { memoryId, summary: 'Mira lied: nobody owes her anything.' },
      });
    });

    it('replays the same answer for the same Idempotency-Key and appends once', async () => {
      const key = { 'idempotency-key': 'correct-1' };
      const first = await correct(memoryId, { summary: 'Once.' }, key);
      const v = await version();
      const again = await correct(memoryId, { summary: 'Once.' }, key);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await version()).toBe(v);
    });
  });

  describe('GET /memories/:memoryId/history', () => {
    it('answers 404 MEMORY_NOT_FOUND for an unknown memory, 400 INVALID_VERSION for asOf outside 1..version', async () => {
      expectProblem(await admin('GET', '/memories/tc:1:npc:nobody/history'), 404, 'MEMORY_NOT_FOUND');
      const v = await version();
      expectProblem(await admin('GET', `/memories/${memoryId}/history?asOf=${v + 1}`), 400, 'INVALID_VERSION');
      expectProblem(await admin('GET', `/memories/${memoryId}/history?asOf=0`), 400, 'INVALID_VERSION');
      expectProblem(await admin('GET', `/memories/${memoryId}/history?asOf=x`), 400, 'VALIDATION_FAILED');
      expectProblem(await admin('GET', `/memories/${memoryId}/history?since=1`), 400, 'VALIDATION_FAILED');
    });

    it('hides the history of a memory a viewer-bound key did not witness (404, as for any unknown memory)', async () => {
      // The tavern memory holds a dm-only line: Aria never witnessed all of it.
      const res = await t.http('GET', `/v1/campaigns/${cid}/memories/${memoryId}/history`, undefined, as(ARIA));
      expectProblem(res, 404, 'MEMORY_NOT_FOUND');
    });

    it('lists the recorded wording and each correction, oldest first; asOf before a correction stops there (needs the corrections projection)', async () => {
      const { body } = await admin('GET', `/memories/${memoryId}/history`);
      // DESIGN §8: the first wording was built from message 2, which the swipe above retracted: withdrawn, no text.
      expect(body.items[0]).toMatchObject({ revision: 1, origin: 'model', reason: 'withdrawn', summary: '' });
      const corrected = body.items.filter((i: { reason: string }) => i.reason === 'corrected');
      expect(corrected.map((i: { summary: string; origin: string }) => [i.summary, i.origin])).toEqual([
        ['Mira lied: nobody owes her anything.', 'dm'],
        ['Once.', 'dm'],
      ]);
      // The swipe above retracted message 2, one of this memory's inputs: the worker revises it (§10) at the
      // retraction's version, before the correction if it got there first. As of the version before the correction,
      // the history is exactly the rows before it — no correction.
      const before = body.items.filter((i: { version: number }) => i.version < corrected[0].version);
      expect(before.map((i: { reason: string }) => i.reason)).not.toContain('corrected');
      const asOf = await admin('GET', `/memories/${memoryId}/history?asOf=${corrected[0].version - 1}`);
      expect(asOf.body.items).toEqual(before);
    });
  });

  describe('DELETE /memories/:memoryId', () => {
    const remove = (id: string, headers: Record<string, string> = {}) =>
      admin('DELETE', `/memories/${encodeURIComponent(id)}`, undefined, headers);

    it('is 403 for a viewer-bound key, 404 MEMORY_NOT_FOUND for an unknown memory', async () => {
      const res = await t.http('DELETE', `/v1/campaigns/${cid}/memories/${memoryId}`, undefined, as(ARIA));
      expectProblem(res, 403, 'VIEWER_BOUND');
      await expectRejected(t, cid, 404, 'MEMORY_NOT_FOUND', () => remove('tc:1:world:none'), as(ADMIN));
    });

    it('deletes with 204 and an ETag, appending MemoryDeleted', async () => {
      const before = await version();
      const res = await remove(memoryId, { 'if-match': `${before}` });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(res.headers.get('etag')).toBe(`"1:${before + 1}"`);
      expect(await lastEvent()).toMatchObject({ version: before + 1, type: 'MemoryDeleted', data: { memoryId } });
    });

    it('answers a second delete, and a correction of the deleted memory, with 404 (needs the memory projection)', async () => {
      await expectRejected(t, cid, 404, 'MEMORY_NOT_FOUND', () => remove(memoryId), as(ADMIN));
      await expectRejected(
        t,
        cid,
        404,
        'MEMORY_NOT_FOUND',
        () => admin('PUT', `/memories/${memoryId}`, { summary: 'x' }),
        as(ADMIN),
      );
    });
  });

  describe('the typed client (libs/client)', () => {
    it('retracts with If-Match "<timeline>:<version>", corrects, deletes, and reports the §10 codes', async () => {
      const lk = new LorekeeperClient({ baseUrl: t.url, apiKey: ADMIN });
      const id = 'tc-client';
      await lk.createCampaign({ id, name: 'Client' });
      await lk.putLocation(id, 'hall', { name: 'Hall' });
      await lk.putLocation(id, 'yard', { name: 'Yard' });
      await lk.changeLocation(id, 'hall');
      const said = await lk.recordMessages(id, [{ role: 'dm', content: 'The hall is cold.' }]);
      const moved = await lk.changeLocation(id, 'yard');
      await lk.context(id, { minVersion: moved.version, waitMs: 10_000 });
      const [memory] = (await lk.memories(id, { scope: 'location', subjectId: 'hall' })).items;

      const stale = await lk.retractMessages(id, said.indexes, {}, { ifMatch: `2:${moved.version}` }).catch((e) => e);
      expect(stale).toBeInstanceOf(LorekeeperError);
      expect([stale.status, stale.code]).toEqual([412, 'VERSION_MISMATCH']);
      const retracted = await lk.retractMessages(
        id,
        said.indexes,
        { reason: 'swiped' },
        {
          ifMatch: `1:${moved.version}`,
        },
      );
      expect(retracted).toEqual({ version: moved.version + 1, timeline: 1 });

      const corrected = await lk.correctMemory(id, memory.id, 'The hall was warm.');
      expect(corrected).toMatchObject({ id: memory.id, summary: 'The hall was warm.', origin: 'dm', locked: true });
      await expect(lk.deleteMemory(id, memory.id)).resolves.toBeUndefined();
      const unknown = await lk.memoryHistory(id, `${id}:1:npc:none`).catch((e) => e);
      expect([unknown.status, unknown.code]).toEqual([404, 'MEMORY_NOT_FOUND']);
      const types = (await lk.events(id, { stream: 'game', limit: 1000 })).items.map((e: { type: string }) => e.type);
      expect(types.slice(-3)).toEqual(['MessagesRetracted', 'MemoryCorrected', 'MemoryDeleted']);
      expect((await lk.listCampaigns()).items.map((c) => c.id)).toEqual(expect.arrayContaining([cid, id]));
    });
  });
});
