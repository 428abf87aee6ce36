import { request as httpRequest } from 'node:http';
import { testDatabaseUrl } from '../../support/test-postgres';
import { scenario } from '../../support/scenario';
import { idsOf, openStream, reached } from '../../support/sse';
import { startTestApp, tempDb, TestApp } from '../../support/test-app';

jest.setTimeout(60_000);

const say = (content: string, extra: Record<string, unknown> = {}) => ({
  role: 'player',
  speaker: 'Aria',
  content,
  ...extra,
});

/** A campaign with game events, a location memory and a world memory. */
async function play(t: TestApp, id: string) {
  const s = scenario(t, id);
  await s.create('Stream test');
  await s.location('tavern', 'Rusty Anchor');
  await s.location('docks', 'Docks');
  await s.quest('relic', 'Find the Relic', [{ id: 'map', name: 'Buy the map' }]);
  await s.move('tavern');
  await s.say(say('Mira sells us the map for 5 gold.'), say('We thank her and leave.'));
  await s.move('docks');
  await s.say(say('The docks smell of tar.'));
  await s.command('complete-objective', { questId: 'relic', objectiveId: 'map' });
  await s.settled();
  const c = await s.campaign();
  const memory = (await t.http('GET', `/v1/campaigns/${id}/events?stream=memory&limit=1000`)).body.items.length;
  return { s, game: c.version as number, memory: memory as number };
}

describe('GET /v1/campaigns/:cid/stream', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { STREAM_HEARTBEAT_MS: '100' } });
  });
  afterAll(async () => t.close());

  it('sends every event of both streams once, in commit order, with <timeline>:<stream>:<version> ids', async () => {
    const { game, memory } = await play(t, 'order');
    expect(memory).toBeGreaterThanOrEqual(2);
    const stream = openStream(t.url, 'order');
    const events = await stream.until(reached(game, memory));
    stream.close();
    const ids = idsOf(events);
    expect(ids.filter((i) => i.startsWith('1:game:'))).toEqual(
      Array.from({ length: game }, (_, i) => `1:game:${i + 1}`),
    );
    expect(ids.filter((i) => i.startsWith('1:memory:'))).toEqual(
      Array.from({ length: memory }, (_, i) => `1:memory:${i + 1}`),
    );
    // Commit order: a memory outcome comes after the game event that triggered it.
    for (const [i, e] of events.entries()) {
      expect(e.event).toBe(e.data.type);
      if (e.data.stream !== 'memory') continue;
      expect(e.data.triggerVersion).toEqual(expect.any(Number));
      const trigger = events.findIndex((x) => x.id === `1:game:${e.data.triggerVersion}`);
      expect(trigger).toBeGreaterThanOrEqual(0);
      expect(trigger).toBeLessThan(i);
    }
    // The same data as the events API.
    const api = (await t.http('GET', '/v1/campaigns/order/events?stream=memory')).body.items;
    const first = events.find((e) => e.id === '1:memory:1')!;
    expect(first.data).toEqual({
      stream: 'memory',
      version: 1,
      type: api[0].type,
      data: api[0].data,
      triggerVersion: api[0].data.triggerVersion,
      recordedAt: api[0].recordedAt,
    });
  });

  it('resumes after any id (Last-Event-ID or ?after=) with no gap and no duplicate', async () => {
    const { game, memory } = await play(t, 'resume');
    const all = openStream(t.url, 'resume');
    const full = idsOf(await all.until(reached(game, memory)));
    all.close();
    for (let k = 0; k < full.length; k++) {
      const rest = openStream(t.url, 'resume', { after: full[k] });
      const got = idsOf(await rest.until((ev) => idsOf(ev).length >= full.length - k - 1, 5000));
      rest.close();
      expect(got).toEqual(full.slice(k + 1));
    }
    // ?after= is the same (Last-Event-ID wins when both are sent, as a browser reconnect sends it).
    const viaQuery = await rawStream(t.url, `/v1/campaigns/resume/stream?after=${full[2]}`, {}, (text) =>
      text.includes(`id: ${full[full.length - 1]}\n`),
    );
    expect(idsIn(viaQuery)).toEqual(full.slice(3));
    const both = await rawStream(
      t.url,
      `/v1/campaigns/resume/stream?after=${full[0]}`,
      { 'last-event-id': full[4] },
      (text) => text.includes(`id: ${full[full.length - 1]}\n`),
    );
    expect(idsIn(both)).toEqual(full.slice(5));
  });

  it('sends new writes live and comment heartbeats while idle', async () => {
    const s = scenario(t, 'live');
    await s.create('Live');
    const stream = openStream(t.url, 'live', { after: '1:game:1' });
    await s.location('tavern', 'Rusty Anchor');
    const events = await stream.until((ev) => idsOf(ev).includes('1:game:2'));
    expect(events[0].data).toMatchObject({ stream: 'game', version: 2, type: 'LocationRegistered' });
    stream.close();
    const text = await rawStream(t.url, '/v1/campaigns/live/stream?after=1:game:2', {}, (txt) =>
      txt.includes(': heartbeat'),
    );
    expect(text).toContain(': heartbeat\n\n');
    expect(idsIn(text)).toEqual([]);
  });

  it('refuses a malformed or unknown event id and an unknown campaign with problem+json', async () => {
    const s = scenario(t, 'bad-ids');
    await s.create('Bad ids');
    for (const [headers, query] of [
      [{ 'last-event-id': 'nonsense' }, ''],
      [{}, '?after=1:game:x'],
      [{}, '?after=1:chat:1'],
      [{}, '?after=1:game:99'],
      [{}, '?after=2:game:1'],
      [{}, '?from=1'],
    ] as const) {
      const res = await fetch(`${t.url}/v1/campaigns/bad-ids/stream${query}`, { headers });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      const body = (await res.json()) as { code: string };
      expect(['INVALID_EVENT_ID', 'VALIDATION_FAILED']).toContain(body.code);
    }
    for (const q of [
      '?limit=0',
      '?limit=501',
      '?limit=x',
      '?before=1:game:99',
      '?before=nonsense',
      '?after=1:game:1',
    ]) {
      const res = await t.http('GET', `/v1/campaigns/bad-ids/timeline${q}`);
      expect(res.status).toBe(400);
      expect(['INVALID_EVENT_ID', 'VALIDATION_FAILED']).toContain(res.body.code);
    }
    const missing = await fetch(`${t.url}/v1/campaigns/nope/stream`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe('CAMPAIGN_NOT_FOUND');
  });

  it('answers HEAD with the stream headers and ends it (a HEAD held open never answered)', async () => {
    await scenario(t, 'head').create('Head');
    const res = await fetch(`${t.url}/v1/campaigns/head/stream?after=1:game:1`, {
      method: 'HEAD',
      signal: AbortSignal.timeout(5_000),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(await res.text()).toBe('');
  });

  it('pages the merged timeline backwards in the same order as the stream', async () => {
    const { game, memory } = await play(t, 'pages');
    const all = openStream(t.url, 'pages');
    const full = idsOf(await all.until(reached(game, memory)));
    all.close();
    const newest = (await t.http('GET', '/v1/campaigns/pages/timeline?limit=4')).body.items.map(
      (i: { id: string }) => i.id,
    );
    expect(newest).toEqual(full.slice(-4));
    const paged: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = (
        await t.http('GET', `/v1/campaigns/pages/timeline?limit=3${before ? `&before=${before}` : ''}`)
      ).body.items.map((i: { id: string }) => i.id);
      if (page.length === 0) break;
      paged.unshift(...page);
      before = page[0];
    }
    expect(paged).toEqual(full);
  });

  it('resumes across a rewind it missed with one `rewound` notice, then only ids of the new timeline', async () => {
    const { s, game } = await play(t, 'rewound-resume');
    const first = openStream(t.url, 'rewound-resume');
    const seen = idsOf(await first.until((ev) => idsOf(ev).includes(`1:game:${game}`)));
    first.close();
    // Rewound while nobody listened; a listener resumes from the last id it saw (pre-rewind, timeline 1).
    expect((await t.http('POST', '/v1/campaigns/rewound-resume/rewind', { toVersion: 3 })).status).toBe(200);
    await s.say(say('The story goes another way.'));
    const again = openStream(t.url, 'rewound-resume', { after: seen[seen.length - 1] });
    const events = await again.until((ev) => idsOf(ev).includes('2:game:5'));
    again.close();
    const notices = events.filter((e) => e.id === undefined);
    expect(notices.map((e) => e.event)).toEqual(['rewound']);
    expect(notices[0].data).toMatchObject({ timeline: 2, fromVersion: game, toVersion: 3 });
    expect(events[0].event).toBe('rewound');
    const games = idsOf(events).filter((id) => id.includes(':game:'));
    expect(games).toEqual(['2:game:4', '2:game:5']);
  });

  it('ends with a `deleted` notice when the campaign is deleted, and a later connect is 404', async () => {
    const { game } = await play(t, 'deleted-live');
    const stream = openStream(t.url, 'deleted-live');
    await stream.until((ev) => idsOf(ev).includes(`1:game:${game}`));
    expect((await t.http('DELETE', '/v1/campaigns/deleted-live')).status).toBe(204);
    await stream.ended;
    const last = stream.events[stream.events.length - 1];
    expect(last.event).toBe('deleted');
    // The notice names the last event this listener was sent (memory events may follow the game head).
    const seen = idsOf(stream.events);
    expect(last.data).toMatchObject({ campaignId: 'deleted-live', lastEventId: seen[seen.length - 1] });
    const later = await fetch(`${t.url}/v1/campaigns/deleted-live/stream`);
    expect(later.status).toBe(404);
  });
});

describe('GET /v1/campaigns (the campaign list)', () => {
  it('lists campaigns by id, pages with after and limit, and shows a scoped key only its campaigns', async () => {
    const key = 'inspector-key-0123456789';
    const scoped = 'scoped-key-0123456789abc';
    const t = await startTestApp({ env: { LOREKEEPER_API_KEYS: `${key},${scoped}=team-*` } });
    try {
      const auth = { authorization: `Bearer ${key}` };
      for (const id of ['team-a', 'solo', 'team-b'])
        expect((await t.http('POST', '/v1/campaigns', { id, name: `Campaign ${id}` }, auth)).status).toBe(201);
      const all = await t.http('GET', '/v1/campaigns', undefined, auth);
      expect(all.body.items.map((c: { id: string }) => c.id)).toEqual(['solo', 'team-a', 'team-b']);
      expect(all.body.items[0]).toEqual({
        id: 'solo',
        name: 'Campaign solo',
        version: 1,
        processedVersion: expect.any(Number),
        parent: null,
        createdAt: expect.any(String),
      });
      const page = await t.http('GET', '/v1/campaigns?after=solo&limit=1', undefined, auth);
      expect(page.body.items.map((c: { id: string }) => c.id)).toEqual(['team-a']);
      const mine = await t.http('GET', '/v1/campaigns', undefined, { authorization: `Bearer ${scoped}` });
      expect(mine.body.items.map((c: { id: string }) => c.id)).toEqual(['team-a', 'team-b']);
      expect((await t.http('GET', '/v1/campaigns')).status).toBe(401);
      for (const q of ['?limit=0', '?limit=x', '?after=%20bad', '?sort=id']) {
        const bad = await t.http('GET', `/v1/campaigns${q}`, undefined, auth);
        expect(bad.status).toBe(400);
        expect(bad.body.code).toBe('VALIDATION_FAILED');
      }
    } finally {
      await t.close();
    }
  });
});

describe('stream auth and campaign scoping', () => {
  it('needs a key, hides campaigns outside its scope, and streams those inside', async () => {
    const key = 'inspector-key-0123456789';
    const scoped = 'scoped-key-0123456789abc';
    const t = await startTestApp({ env: { LOREKEEPER_API_KEYS: `${key},${scoped}=team-*` } });
    try {
      const auth = { authorization: `Bearer ${key}` };
      for (const id of ['team-a', 'solo'])
        expect((await t.http('POST', '/v1/campaigns', { id, name: id }, auth)).status).toBe(201);
      expect((await fetch(`${t.url}/v1/campaigns/team-a/stream`)).status).toBe(401);
      expect(
        (
          await fetch(`${t.url}/v1/campaigns/team-a/stream`, {
            headers: { authorization: 'Bearer wrong-key-0123456789' },
          })
        ).status,
      ).toBe(401);
      const hidden = await fetch(`${t.url}/v1/campaigns/solo/stream`, {
        headers: { authorization: `Bearer ${scoped}` },
      });
      expect(hidden.status).toBe(404);
      expect(((await hidden.json()) as { code: string }).code).toBe('CAMPAIGN_NOT_FOUND');
      expect(
        (await fetch(`${t.url}/v1/campaigns/solo/timeline`, { headers: { authorization: `Bearer ${scoped}` } })).status,
      ).toBe(404);
      const stream = openStream(t.url, 'team-a', { apiKey: scoped });
      const events = await stream.until((ev) => idsOf(ev).includes('1:game:1'));
      stream.close();
      expect(events[0].data.type).toBe('CampaignCreated');
    } finally {
      await t.close();
    }
  });
});

(testDatabaseUrl() ? describe.skip : describe)('stream across a restart (SQLite file)', () => {
  it('resumes after the last id seen before the restart with no gap and no duplicate', async () => {
    const db = tempDb();
    try {
      let t = await startTestApp({ dbPath: db.path });
      const { s } = await play(t, 'restart');
      const before = openStream(t.url, 'restart');
      const c = await s.campaign();
      const seen = idsOf(await before.until(reached(c.version, 1)));
      await t.close();
      await before.ended;
      t = await startTestApp({ dbPath: db.path });
      const s2 = scenario(t, 'restart');
      await s2.say(say('Back after the restart.'));
      await s2.move('tavern');
      await s2.settled();
      const after = openStream(t.url, 'restart', { after: seen[seen.length - 1] });
      const all = openStream(t.url, 'restart');
      const c2 = await s2.campaign();
      const memory = (await t.http('GET', '/v1/campaigns/restart/events?stream=memory&limit=1000')).body.items.length;
      const full = idsOf(await all.until(reached(c2.version, memory)));
      const rest = idsOf(await after.until((ev) => idsOf(ev).length === full.length - seen.length));
      all.close();
      after.close();
      expect([...seen, ...rest]).toEqual(full);
      await t.close();
    } finally {
      db.cleanup();
    }
  });
});

describe('a slow listener', () => {
  it('is cut off with a cutoff notice naming its last event, and resumes from there without a gap', async () => {
    // The stall limit leaves the resumed (reading) listener room under CI load; the silent one waits 3× as long.
    const t = await startTestApp({ env: { STREAM_STALL_MS: '1000' } });
    try {
      const s = scenario(t, 'slow');
      await s.create('Slow');
      const big = 'x'.repeat(15_000);
      // More than the loopback socket buffers hold, so the server must wait for a reader that never reads.
      for (let i = 0; i < 12; i++) await s.say(...Array.from({ length: 60 }, (_, j) => say(`${i}-${j} ${big}`)));
      const { version } = await s.campaign();
      const text = await slowRead(t.url, '/v1/campaigns/slow/stream', 3000);
      const frames = text.trimEnd().split('\n\n');
      const last = frames[frames.length - 1];
      expect(last).toMatch(/^event: cutoff\ndata: /);
      const notice = JSON.parse(last.split('data: ')[1]);
      expect(notice.reason).toBe('slow-listener');
      const ids = idsIn(text);
      expect(ids.length).toBeGreaterThan(0);
      expect(ids.length).toBeLessThan(version);
      expect(notice.lastEventId).toBe(ids[ids.length - 1]);
      const rest = openStream(t.url, 'slow', { after: notice.lastEventId });
      const got = idsOf(await rest.until((ev) => idsOf(ev).includes(`1:game:${version}`), 20_000));
      rest.close();
      expect([...ids, ...got]).toEqual(Array.from({ length: version }, (_, i) => `1:game:${i + 1}`));
    } finally {
      await t.close();
    }
  });
});

const idsIn = (text: string) => [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1]);

/** Reads a stream as raw text until `done(text)` holds, then closes it. */
function rawStream(
  url: string,
  path: string,
  headers: Record<string, string>,
  done: (text: string) => boolean,
  ms = 5000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const req = httpRequest(`${url}${path}`, { headers }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        if (done(text)) {
          clearTimeout(timer);
          req.destroy();
          resolve(text);
        }
      });
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`timed out; got ${text.slice(-500)}`));
    }, ms);
    req.on('error', (err) => (text && done(text) ? undefined : reject(err)));
    req.end();
  });
}

/** Opens a stream, reads nothing for `pauseMs`, then reads everything until the server ends it. */
function slowRead(url: string, path: string, pauseMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const req = httpRequest(`${url}${path}`, (res) => {
      res.pause();
      setTimeout(() => {
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.resume();
      }, pauseMs);
    });
    req.on('error', reject);
    req.end();
  });
}
