import { FixedClock } from '@app/common';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(60_000);

describe('broadcasts over HTTP', () => {
  let t: TestApp;
  const clock = new FixedClock(new Date('2026-05-01T12:00:00.000Z'));
  const post = (body: unknown, headers?: Record<string, string>) => t.http('POST', '/v1/broadcasts', body, headers);
  const list = (query = '') => t.http('GET', `/v1/broadcasts${query}`);

  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(async () => t.close());

  it('posts a broadcast → 201 {id, content, from, at, visibility}', async () => {
    const res = await post({ content: 'Pirates sighted off the Café reef.', from: 'scout-1' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      content: 'Pirates sighted off the Café reef.',
      from: 'scout-1',
      at: '2026-05-01T12:00:00.000Z',
      visibility: 'public',
    });
  });

  it('lists newest first without q, and ranks with q (same query language)', async () => {
    clock.advance(1000);
    await post({ content: 'Selling iron ore at the north dock, cheap.', from: 'trader' });
    clock.advance(1000);
    await post({ content: 'Iron ore, iron ore: the guild buys iron ore at double price.', from: 'guild' });
    const newest = await list();
    expect(newest.status).toBe(200);
    expect(newest.body.items.map((i: { from: string }) => i.from)).toEqual(['guild', 'trader', 'scout-1']);
    expect(newest.body.items[0]).toEqual({
      kind: 'broadcast',
      ref: newest.body.items[0].id,
      id: expect.any(String),
      content: expect.stringContaining('guild buys'),
      from: 'guild',
      at: '2026-05-01T12:00:02.000Z',
      visibility: 'public',
    });

    const ranked = await list('?q=iron%20ore');
    expect(ranked.body.items.map((i: { from: string }) => i.from)).toEqual(['guild', 'trader']);
    expect(ranked.body.items[0]).toMatchObject({
      kind: 'broadcast',
      snippet: expect.stringContaining('«iron» «ore»'),
      score: expect.any(Number),
    });
    expect(ranked.body.items[0].score).toBeGreaterThan(ranked.body.items[1].score);

    expect((await list('?q=cafe')).body.items.map((i: { from: string }) => i.from)).toEqual(['scout-1']);
    expect((await list('?limit=1')).body.items).toHaveLength(1);
    expect((await list('?q=ore&limit=1')).body.items).toHaveLength(1);
  });

  it('replays an Idempotency-Key instead of posting twice', async () => {
    const body = { content: 'Once only.', from: 'echo' };
    const first = await post(body, { 'idempotency-key': 'bc-1' });
    const again = await post(body, { 'idempotency-key': 'bc-1' });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await list('?q=once')).body.items).toHaveLength(1);
    const reused = await post({ content: 'Something else.', from: 'echo' }, { 'idempotency-key': 'bc-1' });
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  describe('bad input is a 400 with a code and posts nothing', () => {
    it.each([
      ['empty content', { content: '', from: 'a' }],
      ['blank content', { content: '   ', from: 'a' }],
      ['content over 16,000 characters', { content: 'x'.repeat(16_001), from: 'a' }],
      ['no from', { content: 'hello' }],
      ['a bad from id', { content: 'hello', from: '-nope' }],
      ['an unknown field', { content: 'hello', from: 'a', to: 'b' }],
      ['not an object', [1, 2]],
    ])('%s → 400 VALIDATION_FAILED', async (_label, body) => {
      const before = (await list('?limit=100')).body.items.length;
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect((await list('?limit=100')).body.items.length).toBe(before);
    });

    it('accepts exactly 16,000 characters', async () => {
      expect((await post({ content: 'y'.repeat(16_000), from: 'a' })).status).toBe(201);
    });

    it.each([
      ['empty q', '?q=', 'INVALID_QUERY'],
      ['an unclosed quote', `?q=${encodeURIComponent('"pirates')}`, 'INVALID_QUERY'],
      ['a bare *', '?q=*', 'INVALID_QUERY'],
      ['limit 0', '?limit=0', 'VALIDATION_FAILED'],
      ['limit 101', '?limit=101', 'VALIDATION_FAILED'],
      ['an unknown parameter', '?from=guild', 'VALIDATION_FAILED'],
    ])('GET with %s (%s) → 400 %s', async (_label, query, code) => {
      const res = await list(query);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(code);
    });
  });
});

/** DESIGN §8: a broadcast posted with `visibility: gm` reaches full keys of the scope, never a viewer-bound key. */
describe('gm broadcasts', () => {
  const GM = 'gm-token-0123456789abcdef';
  const BOB = 'bob-token-0123456789abcdef';
  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { LOREKEEPER_API_KEYS: `${GM}, ${BOB}=*@player:bob` } });
  });
  afterAll(async () => t.close());

  it('shows a gm broadcast to the full key only, listed or searched', async () => {
    const gm = await t.http(
      'POST',
      '/v1/broadcasts',
      { content: 'The ambush waits at Tarnhollow.', from: 'gm', visibility: 'gm' },
      as(GM),
    );
    expect(gm.status).toBe(201);
    expect(gm.body.visibility).toBe('gm');
    const pub = await t.http('POST', '/v1/broadcasts', { content: 'Market day at Tarnhollow.', from: 'gm' }, as(GM));
    expect(pub.body.visibility).toBe('public');
    for (const query of ['', '?q=Tarnhollow']) {
      const full = await t.http('GET', `/v1/broadcasts${query}`, undefined, as(GM));
      expect(full.body.items.map((b: { id: string }) => b.id).sort()).toEqual([gm.body.id, pub.body.id].sort());
      const bob = await t.http('GET', `/v1/broadcasts${query}`, undefined, as(BOB));
      expect(bob.status).toBe(200);
      expect(bob.body.items.map((b: { id: string }) => b.id)).toEqual([pub.body.id]);
      expect(bob.text).not.toContain('ambush');
    }
  });

  it('refuses another visibility and a bound key posting', async () => {
    const bad = await t.http('POST', '/v1/broadcasts', { content: 'x', from: 'gm', visibility: 'dm' }, as(GM));
    expect(bad.status).toBe(400);
    const bound = await t.http('POST', '/v1/broadcasts', { content: 'x', from: 'bob' }, as(BOB));
    expect(bound.status).toBe(403);
    expect(bound.body.code).toBe('VIEWER_BOUND');
  });
});
