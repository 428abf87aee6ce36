import { FixedClock } from '@app/common';
import { bigMap, ship, status } from '../../support/game-fixtures';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

/** DESIGN §5 over HTTP: snapshots per account, recency, staleness, login/logout, the context section. */
describe('game-state snapshots (e2e)', () => {
  let t: TestApp;
  const clock = new FixedClock(new Date('2026-03-01T12:00:00.000Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(async () => t.close());

  async function campaign(id: string) {
    await scenario(t, id).create();
    const base = `/v1/campaigns/${id}`;
    const ok = async (method: string, path: string, body?: unknown) => {
      const res = await t.http(method, `${base}${path}`, body);
      if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
      return res.body;
    };
    return {
      base,
      ok,
      put: (acc: string, tool: string, body: Record<string, unknown>) =>
        ok('PUT', `/accounts/${acc}/snapshots/${tool}`, body),
      login: (acc: string, agentId: string) => ok('POST', `/accounts/${acc}/login`, { agentId }),
      logout: (acc: string) => ok('POST', `/accounts/${acc}/logout`),
      act: (acc: string, action: string, tick?: number) =>
        ok('POST', `/accounts/${acc}/actions`, { action, ...(tick === undefined ? {} : { tick }) }),
      list: (acc: string) =>
        ok('GET', `/accounts/${acc}/snapshots`).then(
          (b) => b.items as { tool: string; stale: boolean; tick: number | null; bytes: number }[],
        ),
      state: async (query: string) => {
        const res = await t.http('GET', `${base}/context?agent=agent&include=state&format=text&${query}`);
        expect(res.status).toBe(200);
        return res.text;
      },
      json: async (query: string) => {
        const res = await t.http('GET', `${base}/context?agent=agent&include=state&${query}`);
        expect(res.status).toBe(200);
        return res.body;
      },
      version: async () => (await ok('GET', '')).version as number,
    };
  }

  it('stores one snapshot per account and tool, outside the event log', async () => {
    const c = await campaign('gs-basic');
    const before = await c.version();
    const put = await c.put('acct-1', 'get_status', { content: { credits: 10 }, tick: 100 });
    expect(put).toEqual({ tool: 'get_status', tick: 100, capturedAt: '2026-03-01T12:00:00.000Z', bytes: 14 });
    await c.put('acct-1', 'get_status', { content: { credits: 12 }, tick: 101, capturedAt: '2026-03-01T11:59:00Z' });
    expect(await c.list('acct-1')).toEqual([
      { tool: 'get_status', tick: 101, capturedAt: '2026-03-01T11:59:00.000Z', bytes: 14, stale: false },
    ]);
    expect(await c.ok('GET', '/accounts/acct-1/snapshots/get_status')).toEqual({
      tool: 'get_status',
      tick: 101,
      capturedAt: '2026-03-01T11:59:00.000Z',
      stale: false,
      fieldTicks: {},
      content: { credits: 12 },
    });
    expect(await c.list('nobody')).toEqual([]);
    expect(await c.version()).toBe(before);
  });

  it('refuses an out-of-order write and changes nothing', async () => {
    const c = await campaign('gs-order');
    await c.put('a', 'get_status', { content: { credits: 10 }, tick: 100 });
    const res = await t.http('PUT', `${c.base}/accounts/a/snapshots/get_status`, { content: { credits: 1 }, tick: 99 });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('SNAPSHOT_OUT_OF_ORDER');
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect((await c.ok('GET', '/accounts/a/snapshots/get_status')).content).toEqual({ credits: 10 });
  });

  it('merge updates only the named fields and records their ticks', async () => {
    const c = await campaign('gs-merge');
    await c.put('a', 'get_notifications', {
      content: { unread: 1, inbox: { trade: 'ore up', war: 'none' }, tags: ['x'] },
      tick: 10,
      merge: true,
    });
    await c.put('a', 'get_notifications', {
      content: { inbox: { war: 'pirates at sys-4' }, tags: ['y', 'z'] },
      tick: 12,
      merge: true,
    });
    const got = await c.ok('GET', '/accounts/a/snapshots/get_notifications');
    expect(got.content).toEqual({ unread: 1, inbox: { trade: 'ore up', war: 'pirates at sys-4' }, tags: ['y', 'z'] });
    expect(got.fieldTicks).toEqual({ unread: 10, 'inbox.trade': 10, 'inbox.war': 12, tags: 12 });
    expect(got.tick).toBe(12);
  });

  it('reads recency in ticks: 100 → 102 is "2 ticks ago (20 seconds)"', async () => {
    const c = await campaign('gs-recency');
    await c.login('acct', 'bot');
    await c.put('acct', 'get_status', { content: { credits: 5 }, tick: 100 });
    const text = await c.state('agentId=bot&tick=102');
    expect(text).toContain(
      '## Current Game State (updated 2 ticks ago)\nLast updated: 2 ticks ago (20 seconds)\n### Status (get_status — 2 ticks ago)\ncredits: 5\n',
    );
    expect(await c.state('agentId=bot')).toContain('Last updated: just now');
  });

  it('falls back to the wall clock through the injected clock when ticks are missing', async () => {
    const c = await campaign('gs-wall');
    await c.login('acct', 'bot');
    await c.put('acct', 'get_ship', { content: { hull: 90 } });
    clock.advance(45_000);
    expect(await c.state('agentId=bot')).toContain(
      '## Current Game State (updated 45 seconds ago)\nLast updated: 45 seconds ago\n### Ship (get_ship — 45 seconds ago)',
    );
    clock.advance(180_000);
    expect(await c.state('agentId=bot')).toContain('Last updated: 3 minutes ago');
  });

  it('travel marks get_status stale; a new get_status clears it', async () => {
    const c = await campaign('gs-travel');
    await c.login('acct', 'bot');
    await c.put('acct', 'get_status', { content: { credits: 5 }, tick: 10 });
    await c.put('acct', 'get_map', { content: bigMap(5), tick: 10 });
    expect(await c.act('acct', 'travel', 11)).toEqual({ stale: ['get_status'] });
    expect((await c.list('acct')).map((s) => [s.tool, s.stale])).toEqual([
      ['get_map', false],
      ['get_status', true],
    ]);
    const stale = await c.state('agentId=bot&tick=11');
    expect(stale).toContain(
      'Stale: get_status is 1 tick old — refresh before relying on it\nTo update: call get_status\n',
    );
    await c.put('acct', 'get_status', { content: { credits: 6 }, tick: 12 });
    expect((await c.list('acct')).every((s) => !s.stale)).toBe(true);
    const fresh = await c.state('agentId=bot');
    expect(fresh).not.toContain('Stale:');
    expect(fresh).toContain('To update: call get_map, get_status\n');
  });

  it('applies a configured invalidatedBy instead of the defaults, and maxAgeTicks', async () => {
    const c = await campaign('gs-rules');
    await c.ok('PUT', '/snapshot-tools/get_status', { invalidatedBy: ['dock'] });
    await c.ok('PUT', '/snapshot-tools/get_map', { title: 'Galaxy map', invalidatedBy: ['warp'], maxAgeTicks: 20 });
    expect((await c.ok('GET', '/snapshot-tools')).items.map((r: { tool: string }) => r.tool)).toEqual([
      'get_map',
      'get_status',
    ]);
    await c.login('acct', 'bot');
    await c.put('acct', 'get_status', { content: { credits: 1 }, tick: 100 });
    await c.put('acct', 'get_poi', { content: { name: 'Belt' }, tick: 100 });
    await c.put('acct', 'get_map', { content: bigMap(3), tick: 50 });
    expect(await c.act('acct', 'travel')).toEqual({ stale: ['get_poi'] });
    expect(await c.act('acct', 'dock')).toEqual({ stale: ['get_status'] });
    const text = await c.state('agentId=bot');
    expect(text).toContain('### Galaxy map (get_map — 50 ticks ago)');
    expect(text).toContain('Stale: get_map is 50 ticks old — refresh before relying on it');
    expect((await c.list('acct')).find((s) => s.tool === 'get_map')!.stale).toBe(true);
    expect(await c.act('acct', 'warp')).toEqual({ stale: ['get_map'] });
  });

  it('a 190 KB get_map with 487 systems becomes a few lines within STATE_MAX_TOKENS', async () => {
    const c = await campaign('gs-bigmap');
    await c.login('acct', 'bot');
    const map = bigMap(487);
    const put = await c.put('acct', 'get_map', { content: map, tick: 1 });
    expect(put.bytes).toBeGreaterThan(180_000);
    await c.put('acct', 'get_status', { content: status(1), tick: 1 });
    await c.put('acct', 'get_ship', { content: ship(1), tick: 1 });
    const ctx = await c.json('agentId=bot');
    const section = ctx.sections.find((s: { key: string }) => s.key === 'state');
    const text = section.entries.map((e: { text: string }) => e.text).join('\n');
    expect(text).toContain('### Map (get_map — just now)\ngalaxy: Orion Spur\nversion: 3\nsystems: 487 items');
    expect(section.tokens).toBeLessThanOrEqual(500);
    expect(Buffer.byteLength(text)).toBeLessThan(2048);
    expect(ctx.state).toEqual({ account: 'acct', agentId: 'bot', stale: [] });
  });

  it('over STATE_MAX_TOKENS shortens the oldest tool blocks to their header and reports them', async () => {
    const c = await campaign('gs-budget');
    await c.login('acct', 'bot');
    const wide = (n: number) =>
      Object.fromEntries(
        Array.from({ length: 10 }, (_, i) => [`field_${n}_${i}`, `a fairly long value for field ${i} of block ${n}`]),
      );
    for (const [i, tool] of ['get_a', 'get_b', 'get_c', 'get_d'].entries())
      await c.put('acct', tool, { content: wide(i), tick: 10 + i });
    const ctx = await c.json('agentId=bot');
    const section = ctx.sections.find((s: { key: string }) => s.key === 'state');
    expect(section.tokens).toBeLessThanOrEqual(500);
    const shortened = ctx.dropped.filter((d: { section: string }) => d.section === 'state');
    expect(shortened.length).toBeGreaterThan(0);
    expect(shortened.map((d: { ref: string }) => d.ref)).toEqual(
      ['get_a', 'get_b', 'get_c', 'get_d'].slice(0, shortened.length),
    );
    expect(shortened.every((d: { reason: string; tokens: number }) => d.reason === 'budget' && d.tokens > 0)).toBe(
      true,
    );
    expect(section.entries.find((e: { ref: string }) => e.ref === 'get_a').text).toBe('### A (get_a — 3 ticks ago)');
    expect(section.entries.find((e: { ref: string }) => e.ref === 'get_d').text).toContain(
      'field_3_0: a fairly long value',
    );
  });

  it('says "Not logged in" when no account is bound, only in a campaign that has had an account (§8)', async () => {
    const c = await campaign('gs-anon');
    // No account ever: no tools to log in with, so no section at all.
    // The trailer alone: its own tokens are counted (§8 amended).
    expect(await c.state('agentId=ghost')).toMatch(/^<!-- context: \d+\/4000 tokens; dropped 0 -->\n$/);
    await c.ok('POST', '/accounts/acct/register', { agentId: 'ghost' });
    expect(await c.state('agentId=ghost')).toContain('## Current Game State\nNo game state stored yet.');
    expect(await c.state('agentId=nobody')).toMatch(
      /^Not logged in\. Use register or login\.\n\n<!-- context: \d+\/4000 tokens; dropped 0 -->\n$/,
    );
  });

  it('switching accounts never mixes state; logout deletes only that account; a restart keeps both', async () => {
    const c = await campaign('gs-switch');
    await c.login('A', 'bot');
    await c.put('A', 'get_status', { content: { credits: 111, pilot: 'Alpha' }, tick: 5 });
    const loggedInB = await c.login('B', 'bot');
    expect(loggedInB.previousAccount).toBe('A');
    const onB = await c.state('agentId=bot');
    expect(onB).toContain('No game state stored yet.');
    expect(onB).not.toContain('Alpha');
    await c.put('B', 'get_status', { content: { credits: 222, pilot: 'Bravo' }, tick: 7 });
    const withB = await c.state('agentId=bot');
    expect(withB).toContain('pilot: Bravo');
    expect(withB).not.toContain('Alpha');
    expect((await c.list('A')).map((s) => s.tool)).toEqual(['get_status']);
    expect(await c.ok('GET', '/accounts')).toEqual({
      items: [
        { account: 'A', agentId: null },
        { account: 'B', agentId: 'bot' },
      ],
    });

    await t.close();
    t = await startTestApp({ clock, dbPath: t.dbPath });
    expect((await c.list('A'))[0].tool).toBe('get_status');
    expect(await c.state('agentId=bot')).toContain('pilot: Bravo');
    expect(await c.state('account=A')).toContain('pilot: Alpha');

    await c.logout('A');
    expect(await c.list('A')).toEqual([]);
    expect((await c.list('B')).map((s) => s.tool)).toEqual(['get_status']);
    expect(await c.state('account=A')).toContain('Not logged in.');
    expect(await c.state('agentId=bot')).toContain('pilot: Bravo');
    await c.logout('B');
    expect(await c.state('agentId=bot')).toContain('Not logged in.');
    const events = (await c.ok('GET', '/events')).items.map((e: { type: string }) => e.type);
    expect(events.filter((e: string) => e.startsWith('Account'))).toEqual([
      'AccountLoggedIn',
      'AccountLoggedIn',
      'AccountLoggedOut',
      'AccountLoggedOut',
    ]);
  });

  describe('bad input: 4xx problem+json with a code, nothing stored, campaign version unchanged', () => {
    const cases: [string, string, string, unknown, number, string][] = [
      ['content missing', 'PUT', '/accounts/a/snapshots/get_status', { tick: 1 }, 400, 'VALIDATION_FAILED'],
      [
        'merge not a boolean',
        'PUT',
        '/accounts/a/snapshots/get_status',
        { content: {}, merge: 'yes' },
        400,
        'VALIDATION_FAILED',
      ],
      [
        'unknown body field',
        'PUT',
        '/accounts/a/snapshots/get_status',
        { content: {}, extra: 1 },
        400,
        'VALIDATION_FAILED',
      ],
      [
        'capturedAt not a date',
        'PUT',
        '/accounts/a/snapshots/get_status',
        { content: {}, capturedAt: 'yesterday' },
        400,
        'VALIDATION_FAILED',
      ],
      ['negative tick', 'PUT', '/accounts/a/snapshots/get_status', { content: {}, tick: -1 }, 400, 'INVALID_TICK'],
      ['non-integer tick', 'PUT', '/accounts/a/snapshots/get_status', { content: {}, tick: 1.5 }, 400, 'INVALID_TICK'],
      ['tick as a string', 'PUT', '/accounts/a/snapshots/get_status', { content: {}, tick: '3' }, 400, 'INVALID_TICK'],
      ['bad account id', 'PUT', '/accounts/-bad/snapshots/get_status', { content: {} }, 400, 'INVALID_ID'],
      ['account id with a space', 'PUT', '/accounts/a%20b/snapshots/get_status', { content: {} }, 400, 'INVALID_ID'],
      ['bad tool id', 'PUT', '/accounts/a/snapshots/get%24status', { content: {} }, 400, 'INVALID_ID'],
      [
        'merge of a non-object',
        'PUT',
        '/accounts/a/snapshots/get_status',
        { content: [1, 2], merge: true },
        400,
        'MERGE_CONTENT_NOT_OBJECT',
      ],
      [
        'merge onto a stored non-object',
        'PUT',
        '/accounts/a/snapshots/get_list',
        { content: { x: 1 }, merge: true },
        400,
        'MERGE_TARGET_NOT_OBJECT',
      ],
      ['action tick negative', 'POST', '/accounts/a/actions', { action: 'travel', tick: -5 }, 400, 'INVALID_TICK'],
      ['action missing', 'POST', '/accounts/a/actions', {}, 400, 'VALIDATION_FAILED'],
      ['action with bad characters', 'POST', '/accounts/a/actions', { action: 'go home!' }, 400, 'VALIDATION_FAILED'],
      ['login without agentId', 'POST', '/accounts/a/login', {}, 400, 'VALIDATION_FAILED'],
      ['login with a numeric agentId', 'POST', '/accounts/a/login', { agentId: 7 }, 400, 'VALIDATION_FAILED'],
      ['logout with a body', 'POST', '/accounts/a/logout', { everything: true }, 400, 'VALIDATION_FAILED'],
      ['tool rule maxAgeTicks 0', 'PUT', '/snapshot-tools/get_map', { maxAgeTicks: 0 }, 400, 'VALIDATION_FAILED'],
      [
        'tool rule fields not dot paths',
        'PUT',
        '/snapshot-tools/get_map',
        { fields: ['a..b'] },
        400,
        'VALIDATION_FAILED',
      ],
      [
        'context tick negative',
        'GET',
        '/context?agent=agent&include=state&account=a&tick=-1',
        undefined,
        400,
        'VALIDATION_FAILED',
      ],
      [
        'context account with bad characters',
        'GET',
        '/context?agent=agent&include=state&account=a%20b',
        undefined,
        400,
        'VALIDATION_FAILED',
      ],
      ['unknown snapshot', 'GET', '/accounts/a/snapshots/get_cargo', undefined, 404, 'SNAPSHOT_NOT_FOUND'],
    ];
    let c: Awaited<ReturnType<typeof campaign>>;
    beforeAll(async () => {
      c = await campaign('gs-bad');
      await c.put('a', 'get_status', { content: { credits: 1 }, tick: 10 });
      await c.put('a', 'get_list', { content: ['x'], tick: 10 });
    });

    it.each(cases)('%s', async (_name, method, path, body, statusCode, code) => {
      const version = await c.version();
      const before = await c.list('a');
      const res = await t.http(method, `${c.base}${path}`, body);
      expect(res.status).toBe(statusCode);
      expect(res.body.code).toBe(code);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(await c.version()).toBe(version);
      expect(await c.list('a')).toEqual(before);
      expect((await c.ok('GET', '/accounts/a/snapshots/get_status')).content).toEqual({ credits: 1 });
      expect((await c.ok('GET', '/snapshot-tools')).items).toEqual([]);
    });

    it('an unknown campaign is 404', async () => {
      const res = await t.http('PUT', '/v1/campaigns/nope/accounts/a/snapshots/get_status', { content: {} });
      expect([res.status, res.body.code]).toEqual([404, 'CAMPAIGN_NOT_FOUND']);
    });
  });
});
