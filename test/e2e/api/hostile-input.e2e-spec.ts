import { connect } from 'node:net';
import { expectProblem, expectRejected } from '../../support/rejection';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(30_000);

/** Regression tests for every 5xx / non-problem answer the fuzzer (test/e2e/api/fuzz.e2e-spec.ts) found. */
describe('hostile input: fuzzer findings stay fixed', () => {
  let t: TestApp;
  const cid = 'hostile';
  beforeAll(async () => {
    t = await startTestApp();
    const s = scenario(t, cid);
    await s.create();
    await s.location('hall', 'Hall');
    await s.npc('mira', 'Mira', 'hall');
    await s.quest('q', 'Quest', [{ id: 'o1', name: 'One' }]);
    await s.move('hall');
  });
  afterAll(async () => t.close());

  describe('ids naming Object.prototype members (were 500: the domain read inherited functions)', () => {
    it.each([
      'constructor',
      'toString',
      'valueOf',
      'hasOwnProperty',
      'isPrototypeOf',
      'propertyIsEnumerable',
      'toLocaleString',
    ])('refuses "%s" as an id in paths and bodies', async (id) => {
      await expectRejected(t, cid, 400, 'INVALID_ID', () =>
        t.http('PUT', `/v1/campaigns/${cid}/quests/${id}`, { name: 'Q', objectives: [] }),
      );
      await expectRejected(t, cid, 400, 'INVALID_ID', () =>
        t.http('PUT', `/v1/campaigns/${cid}/locations/${id}`, { name: 'L' }),
      );
      await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () =>
        t.http('POST', `/v1/campaigns/${cid}/commands/complete-quest`, { questId: id }),
      );
      await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () =>
        t.http('POST', `/v1/campaigns/${cid}/commands/change-location`, { toLocationId: id }),
      );
      await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () =>
        t.http('POST', `/v1/campaigns/${cid}/messages`, { messages: [{ role: 'dm', content: 'x', npcIds: [id] }] }),
      );
      expectProblem(await t.http('GET', `/v1/campaigns/${cid}/context?viewer=${id}`), 400, 'VALIDATION_FAILED');
      expectProblem(await t.http('GET', `/v1/campaigns/${id}`), 400, 'INVALID_ID');
      expectProblem(await t.http('POST', '/v1/campaigns', { id, name: 'x' }), 400, 'VALIDATION_FAILED');
    });

    it('still accepts ids that merely contain such a name', async () => {
      expect((await t.http('PUT', `/v1/campaigns/${cid}/locations/toString2`, { name: 'L' })).status).toBe(200);
      expect((await t.http('PUT', `/v1/campaigns/${cid}/locations/Constructor`, { name: 'L' })).status).toBe(200);
    });
  });

  describe('text that is not storable Unicode', () => {
    it.each([
      ['NUL in content', { role: 'dm', content: 'a\u0000b' }],
      ['a lone high surrogate in content', { role: 'dm', content: 'x\ud800y' }],
      ['a lone low surrogate in a speaker', { role: 'npc', speaker: '\udc00', content: 'hi' }],
    ])('refuses %s with 400 and appends nothing', async (_label, message) => {
      const res = await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () =>
        t.http('POST', `/v1/campaigns/${cid}/messages`, { messages: [{ role: 'dm', content: 'fine' }, message] }),
      );
      expect(res.body.errors[0].path).toMatch(/^messages\.1\./);
    });

    it('keeps emoji, RTL text and combining marks intact', async () => {
      const content = '🧙‍♂️ \u202eطلسم\u202c Z\u0351a\u0357l — ok';
      const res = await t.http('POST', `/v1/campaigns/${cid}/messages`, { messages: [{ role: 'dm', content }] });
      expect(res.status).toBe(201);
      const back = await t.http('GET', `/v1/campaigns/${cid}/messages?after=${res.body.indexes[0] - 1}&limit=1`);
      expect(back.body.items[0].content).toBe(content);
    });
  });

  it('counts a tokenizer special-token string in a message as plain text (a budgeted context threw on "<|endoftext|>")', async () => {
    const c = scenario(t, 'special-tokens');
    await c.create();
    const content = 'The scroll reads <|endoftext|> and <|endofprompt|>, nothing more.';
    expect(
      (await t.http('POST', '/v1/campaigns/special-tokens/messages', { messages: [{ role: 'dm', content }] })).status,
    ).toBe(201);
    for (const q of ['?agent=dm&budget=4000', '?agent=dm&query=scroll', '?include=recent&format=text']) {
      const res = await c.context(q);
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body ?? res.text)).toContain('<|endoftext|>');
    }
  });

  describe('game-state snapshot content (found once the fuzzer covered the §5 routes)', () => {
    const deep = (d: number) => `${'{"a":'.repeat(d)}1${'}'.repeat(d)}`;
    const put = (tool: string, body: string) =>
      t.http('PUT', `/v1/campaigns/${cid}/accounts/acc/snapshots/${tool}`, body, {
        'content-type': 'application/json',
      });

    it.each([false, true])(
      'refuses content nested deeper than 64 levels with 400 (merge %s; merging 20,000 levels was a 500 stack overflow)',
      async (merge) => {
        for (const d of [65, 20_000]) {
          const res = await put(`get_deep_${merge}`, `{"content":${deep(d)},"merge":${merge}}`);
          expectProblem(res, 400, 'VALIDATION_FAILED');
          expect(res.body.errors[0].path).toBe('content');
        }
        expectProblem(
          await t.http('GET', `/v1/campaigns/${cid}/accounts/acc/snapshots/get_deep_${merge}`),
          404,
          'SNAPSHOT_NOT_FOUND',
        );
        expect((await put(`get_deep_${merge}`, `{"content":${deep(64)},"merge":${merge}}`)).status).toBe(200);
      },
    );

    it('shows only the content\'s own fields: a configured field named like an Object.prototype member is absent, not "null"', async () => {
      expect(
        (
          await t.http('PUT', `/v1/campaigns/${cid}/snapshot-tools/get_ship`, {
            fields: ['ship.hull', 'ship.constructor', 'toString'],
          })
        ).status,
      ).toBe(200);
      expect((await put('get_ship', JSON.stringify({ content: { ship: { hull: 7 } }, tick: 1 }))).status).toBe(200);
      const ctx = await t.http('GET', `/v1/campaigns/${cid}/context?include=state&account=acc&format=text`);
      expect(ctx.status).toBe(200);
      expect(ctx.text).toContain('ship.hull: 7');
      expect(ctx.text).not.toMatch(/constructor|toString/);
    });

    it('merges a patch with a key named like an Object.prototype member as a new field', async () => {
      expect((await put('get_cargo', JSON.stringify({ content: { hold: { ore: 1 } }, tick: 1 }))).status).toBe(200);
      expect(
        (
          await put(
            'get_cargo',
            JSON.stringify({
              content: { hold: { valueOf: 2, toString: { x: 1 }, constructor: {} } },
              tick: 2,
              merge: true,
            }),
          )
        ).status,
      ).toBe(200);
      const got = await t.http('GET', `/v1/campaigns/${cid}/accounts/acc/snapshots/get_cargo`);
      expect(got.body.content).toEqual({ hold: { ore: 1, valueOf: 2, toString: { x: 1 }, constructor: {} } });
      // A new empty object changed no leaf: the inherited Object constructor is not a previous value.
      expect(got.body.fieldTicks).toEqual({ 'hold.valueOf': 2, 'hold.toString.x': 2 });
    });
  });

  describe('errors raised before any handler runs (were plain JSON, not problem+json)', () => {
    it('answers a malformed %-escape in the path with 400 INVALID_URL', async () => {
      expectProblem(await t.http('GET', `/v1/campaigns/%E0%A4%A/messages`), 400, 'INVALID_URL');
    });

    it('accepts a 128-character id in the path and refuses a longer one with 400 INVALID_ID', async () => {
      const long = `a${'b'.repeat(127)}`;
      expect((await t.http('PUT', `/v1/campaigns/${cid}/locations/${long}`, { name: 'Long' })).status).toBe(200);
      await expectRejected(t, cid, 400, 'INVALID_ID', () =>
        t.http('PUT', `/v1/campaigns/${cid}/locations/${long}c`, { name: 'Longer' }),
      );
    });

    it('answers a path parameter over 2,048 characters with 414 URI_TOO_LONG', async () => {
      expectProblem(await t.http('GET', `/v1/campaigns/${'a'.repeat(3000)}`), 414, 'URI_TOO_LONG');
    });

    const raw = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const url = new URL(t.url);
        const socket = connect(Number(url.port), url.hostname, () => socket.end(text));
        let out = '';
        socket.on('data', (d) => (out += d.toString('utf8')));
        socket.on('close', () => resolve(out));
        socket.on('error', reject);
      });

    it('answers malformed HTTP framing with 400 problem+json MALFORMED_HTTP', async () => {
      const out = await raw('POST /v1/campaigns HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}');
      expect(out).toMatch(/^HTTP\/1\.1 400 /);
      expect(out).toMatch(/content-type: application\/problem\+json/i);
      expect(JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 400, code: 'MALFORMED_HTTP' });
    });

    it('answers oversized headers with 431 problem+json', async () => {
      const out = await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect(out).toMatch(/^HTTP\/1\.1 431 /);
      expect(JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4))).toMatchObject({
        status: 431,
        code: 'HEADERS_TOO_LARGE',
      });
    });
  });

  describe('bodies', () => {
    it('refuses prototype-pollution keys without polluting anything', async () => {
      for (const body of [
        '{"__proto__":{"polluted":true},"name":"x"}',
        '{"constructor":{"prototype":{"polluted":true}},"name":"x"}',
      ]) {
        expectProblem(
          await t.http('POST', '/v1/campaigns', body, { 'content-type': 'application/json' }),
          400,
          'INVALID_JSON',
        );
        await expectRejected(t, cid, 400, 'INVALID_JSON', () =>
          t.http('POST', `/v1/campaigns/${cid}/messages`, body, { 'content-type': 'application/json' }),
        );
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('refuses 20,000-deep nesting with 400', async () => {
      await expectRejected(t, cid, 400, 'VALIDATION_FAILED', () =>
        t.http('POST', `/v1/campaigns/${cid}/messages`, `{"messages":${'['.repeat(20_000)}${']'.repeat(20_000)}}`, {
          'content-type': 'application/json',
        }),
      );
    });

    it.each([
      ['text/plain', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['application/xml', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['application/x-www-form-urlencoded', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['multipart/form-data; boundary=x', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ])('answers a %s body with %i %s (JSON only: no HTML form can drive the API)', async (type, status, code) => {
      await expectRejected(t, cid, status, code, () =>
        t.http('POST', `/v1/campaigns/${cid}/commands/change-location`, 'toLocationId=hall', { 'content-type': type }),
      );
      expectProblem(await t.http('POST', '/v1/campaigns', 'name=x', { 'content-type': type }), status, code);
    });

    it('answers broken JSON with 400 INVALID_JSON', async () => {
      await expectRejected(t, cid, 400, 'INVALID_JSON', () =>
        t.http('POST', `/v1/campaigns/${cid}/messages`, '{"messages":[', { 'content-type': 'application/json' }),
      );
    });
  });
});
