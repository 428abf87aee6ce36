import { LIMITS } from '../../../apps/memory-service/src/http/dto/campaign.dto';
import { expectProblem, expectRejected } from '../../support/rejection';
import { scenario } from '../../support/scenario';
import { HttpResult, startTestApp, TestApp } from '../../support/test-app';

/**
 * Every documented limit (docs/guarantees.md "Limits"): accepted at the limit, refused one past it, nothing appended.
 */
jest.setTimeout(30_000);

describe('limits', () => {
  let t: TestApp;
  const cid = 'limits';
  const c = `/v1/campaigns/${cid}`;
  const msg = (extra: Record<string, unknown> = {}) => ({ role: 'dm', content: 'ok', ...extra });
  const post = (messages: unknown[]) => t.http('POST', `${c}/messages`, { messages });
  const ok = async (res: Promise<HttpResult>) => {
    const r = await res;
    if (r.status >= 300) throw new Error(`expected 2xx, got ${r.status} ${r.text.slice(0, 300)}`);
    return r;
  };

  beforeAll(async () => {
    t = await startTestApp();
    const s = scenario(t, cid);
    await s.create();
    await s.location('hall', 'Hall');
    await s.npc('mira', 'Mira', 'hall');
    await s.move('hall');
    await s.say(msg({ role: 'assistant', toolCalls: [{ id: 'call-1', name: 'get_status' }] }));
  });
  afterAll(async () => t.close());

  it('are the documented values', () => {
    expect(LIMITS).toEqual({
      bodyBytes: 1_048_576,
      messagesPerPost: 500,
      contentChars: 16_000,
      nameChars: 200,
      aliases: 20,
      aliasChars: 100,
      objectives: 100,
      toolCalls: 64,
      pathParamChars: 1000,
      audience: 100,
      npcIdsPerMessage: 100,
      listLimit: 1000,
    });
  });

  it('body: 1 MiB accepted, one byte more is 413 BODY_TOO_LARGE', async () => {
    // 15,000-character messages plus one filler message that brings the JSON to exactly `size` bytes.
    const body = (size: number) => {
      const messages: Array<{ role: string; content: string }> = [];
      const text = () => JSON.stringify({ messages });
      while (Buffer.byteLength(text()) + 15_100 < size) messages.push({ role: 'dm', content: 'y'.repeat(15_000) });
      messages.push({ role: 'dm', content: 'z' });
      messages[messages.length - 1].content = 'z'.repeat(1 + size - Buffer.byteLength(text()));
      return text();
    };
    const exact = body(LIMITS.bodyBytes);
    expect(Buffer.byteLength(exact)).toBe(LIMITS.bodyBytes);
    await ok(t.http('POST', `${c}/messages`, exact, { 'content-type': 'application/json' }));
    const over = body(LIMITS.bodyBytes + 1);
    expect(Buffer.byteLength(over)).toBe(LIMITS.bodyBytes + 1);
    await expectRejected(t, cid, 413, 'BODY_TOO_LARGE', () =>
      t.http('POST', `${c}/messages`, over, { 'content-type': 'application/json' }),
    );
  });

  it('messages per post: 500 accepted, 501 and 0 refused', async () => {
    expect((await ok(post(Array.from({ length: 500 }, () => msg())))).body.indexes).toHaveLength(500);
    await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () => post(Array.from({ length: 501 }, () => msg())));
    await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () => post([]));
  });

  it('16,000 characters per message content and reasoning; 16,001 refused', async () => {
    await ok(post([msg({ content: 'a'.repeat(16_000), reasoning: 'r'.repeat(16_000) })]));
    await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () => post([msg({ content: 'a'.repeat(16_001) })]));
    await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () => post([msg({ reasoning: 'r'.repeat(16_001) })]));
    // Characters are Unicode code points, not bytes or UTF-16 units: 16,000 dragons (64,000 UTF-8 bytes) fit.
    await ok(post([msg({ content: '🐉'.repeat(16_000) })]));
    await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () => post([msg({ content: '🐉'.repeat(16_001) })]));
  });

  it('ids: 128 characters accepted, 129 refused (path and body)', async () => {
    const id128 = `c${'0'.repeat(127)}`;
    await ok(t.http('POST', '/v1/campaigns', { id: id128, name: 'Long id' }));
    expectProblem(
      await t.http('POST', '/v1/campaigns', { id: `${id128}0`, name: 'Too long' }),
      400,
      'VALIDATION_FAILED',
    );
    expectProblem(await t.http('GET', `/v1/campaigns/${id128}0`), 400, 'INVALID_ID');
    await ok(t.http('PUT', `${c}/locations/${id128}`, { name: 'Far' }));
    await expectRejected(t, cid, 400, 'INVALID_ID', () =>
      t.http('PUT', `${c}/locations/${id128}0`, { name: 'Too far' }),
    );
    await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () =>
      t.http('POST', `${c}/commands/change-location`, { toLocationId: `${id128}0` }),
    );
  });

  it('names: 200 characters accepted, 201 refused (campaign, location, NPC, quest, objective, speaker)', async () => {
    const n200 = 'n'.repeat(200);
    const n201 = 'n'.repeat(201);
    await ok(t.http('PUT', `${c}/locations/named`, { name: n200 }));
    await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () =>
      t.http('PUT', `${c}/locations/named2`, { name: n201 }),
    );
    await ok(t.http('PUT', `${c}/npcs/named`, { name: n200 }));
    await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () => t.http('PUT', `${c}/npcs/named2`, { name: n201 }));
    await ok(t.http('PUT', `${c}/quests/named`, { name: n200, objectives: [{ id: 'o', name: n200 }] }));
    await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () =>
      t.http('PUT', `${c}/quests/named2`, { name: n201, objectives: [] }),
    );
    await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () =>
      t.http('PUT', `${c}/quests/named3`, { name: 'q', objectives: [{ id: 'o', name: n201 }] }),
    );
    await ok(post([msg({ speaker: n200 })]));
    await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () => post([msg({ speaker: n201 })]));
    expectProblem(await t.http('POST', '/v1/campaigns', { name: n201 }), 400, 'VALIDATION_FAILED');
  });

  it('aliases: 20 of 100 characters accepted; 21, or one of 101 characters, refused', async () => {
    const aliases = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(100, 'a'));
    await ok(t.http('PUT', `${c}/npcs/alias`, { name: 'Alias', aliases }));
    await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () =>
      t.http('PUT', `${c}/npcs/alias2`, { name: 'Alias', aliases: [...aliases, 'one more'] }),
    );
    await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () =>
      t.http('PUT', `${c}/npcs/alias3`, { name: 'Alias', aliases: ['a'.repeat(101)] }),
    );
  });

  it('objectives: 100 accepted, 101 refused', async () => {
    const objectives = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `o${i}`, name: `Objective ${i}` }));
    await ok(t.http('PUT', `${c}/quests/big`, { name: 'Big', objectives: objectives(100) }));
    await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () =>
      t.http('PUT', `${c}/quests/bigger`, { name: 'Bigger', objectives: objectives(101) }),
    );
  });

  it('per message: 64 tool calls, 100 audience entries, 100 npcIds accepted; one more refused', async () => {
    const calls = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `tc-${i}`, name: 'get_ship' }));
    await ok(post([msg({ role: 'assistant', toolCalls: calls(64) })]));
    await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () =>
      post([msg({ role: 'assistant', toolCalls: calls(65) })]),
    );
    await ok(post([msg({ visibility: 'private', audience: Array(100).fill('mira') })]));
    await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () =>
      post([msg({ visibility: 'private', audience: Array(101).fill('mira') })]),
    );
    await ok(post([msg({ npcIds: Array(100).fill('mira') })]));
    await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () => post([msg({ npcIds: Array(101).fill('mira') })]));
  });

  it('list limit: 1..1000 on messages, events and memories', async () => {
    await ok(post(Array.from({ length: 500 }, () => msg())));
    for (const path of ['messages', 'events', 'memories']) {
      expect((await t.http('GET', `${c}/${path}?limit=1000`)).status).toBe(200);
      expectProblem(await t.http('GET', `${c}/${path}?limit=1001`), 400, 'VALIDATION_FAILED');
      expectProblem(await t.http('GET', `${c}/${path}?limit=0`), 400, 'VALIDATION_FAILED');
    }
    expect((await t.http('GET', `${c}/messages?limit=1000`)).body.items).toHaveLength(1000);
  });

  it('context: limit 1..100, waitMs ≤ 30,000, budget 50..200,000, query 1..2,000 characters', async () => {
    const ctx = (q: string) => t.http('GET', `${c}/context?${q}`);
    expect((await ctx('limit=100')).status).toBe(200);
    expectProblem(await ctx('limit=101'), 400, 'VALIDATION_FAILED');
    expect((await ctx('minVersion=0&waitMs=30000')).status).toBe(200);
    expectProblem(await ctx('minVersion=0&waitMs=30001'), 400, 'VALIDATION_FAILED');
    expect((await ctx('budget=50')).status).toBe(200);
    expect((await ctx('budget=200000')).status).toBe(200);
    expectProblem(await ctx('budget=49'), 400, 'INVALID_BUDGET');
    expectProblem(await ctx('budget=200001'), 400, 'INVALID_BUDGET');
    expect((await ctx(`query=${'q'.repeat(2000)}`)).status).toBe(200);
    expectProblem(await ctx(`query=${'q'.repeat(2001)}`), 400, 'VALIDATION_FAILED');
  });

  it('headers: Idempotency-Key 1–200 visible ASCII characters, If-Match a version number', async () => {
    await ok(t.http('PUT', `${c}/locations/key`, { name: 'Key' }, { 'idempotency-key': 'k'.repeat(200) }));
    await expectRejected(t, cid, 400, 'INVALID_IDEMPOTENCY_KEY', () =>
      t.http('PUT', `${c}/locations/key2`, { name: 'Key' }, { 'idempotency-key': 'k'.repeat(201) }),
    );
    await expectRejected(t, cid, 400, 'INVALID_IF_MATCH', () =>
      t.http('PUT', `${c}/locations/key3`, { name: 'Key' }, { 'if-match': 'latest' }),
    );
  });
});
