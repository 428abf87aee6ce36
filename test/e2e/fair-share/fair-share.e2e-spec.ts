import { FixedClock } from '@app/common';
import { request as httpRequest } from 'node:http';
import { connect, Socket } from 'node:net';
import type { Worker } from 'node:worker_threads';
import { ReadPool } from '../../../apps/memory-service/src/reads/read-pool';
import { HttpResult, startTestApp, tempDb, TestApp } from '../../support/test-app';

jest.setTimeout(120_000);

const CLOCK_AT = '2026-11-23T08:00:00.000Z';

/** A campaign whose context builds take a while: `rounds` rounds of 50 messages in a tavern with two players. */
async function seed(t: TestApp, cid: string, rounds: number, headers: Record<string, string> = {}): Promise<void> {
  const ok = async (method: string, path: string, body?: unknown) => {
    const r = await t.http(method, `/v1/campaigns/${cid}${path}`, body, headers);
    if (r.status >= 300) throw new Error(`${method} ${path} → ${r.status} ${r.text}`);
  };
  const created = await t.http('POST', '/v1/campaigns', { id: cid, name: 'Fair share' }, headers);
  expect(created.status).toBe(201);
  await ok('PUT', '/locations/tavern', { name: 'The Rusty Anchor' });
  await ok('PUT', '/npcs/mira', { name: 'Mira', locationId: 'tavern' });
  for (const p of ['aria', 'bo']) await ok('PUT', `/players/${p}`, { name: p === 'aria' ? 'Aria' : 'Bo' });
  await ok('POST', '/commands/change-location', { toLocationId: 'tavern' });
  for (let round = 0; round < rounds; round++) {
    const messages = Array.from({ length: 50 }, (_, i) => ({
      role: i % 3 === 0 ? 'dm' : 'player',
      ...(i % 3 === 0 ? {} : { speaker: i % 3 === 1 ? 'Aria' : 'Bo' }),
      content: `Round ${round}, line ${i}: the iron ore crates go down to the docks two days ago; Mira counts ${i} silver.`,
    }));
    await ok('POST', '/messages', { messages });
    await ok('POST', '/commands/end-round');
  }
  // Settled: the memory worker has processed everything, so a later read of the same file answers the same.
  const { version } = (await t.http('GET', `/v1/campaigns/${cid}`, undefined, headers)).body;
  await ok('GET', `/context?minVersion=${version}&waitMs=30000`);
}

/** The reads the identity test compares: contexts of every shape and searches. */
const READS = [
  '/context',
  '/context?format=text',
  '/context?agent=dm&budget=800',
  '/context?agent=player&viewer=aria&query=iron%20ore%20crates',
  '/context?agent=player&viewer=bo&format=text&explain=false',
  '/context?agent=narrative&asOf=8',
  '/context?agent=player&viewer=nobody',
  '/search?q=iron',
  '/search?q=silver&in=messages&limit=5',
  '/search?q=%22unclosed',
];

describe('DESIGN §13: reads in worker threads answer exactly what the main thread answers', () => {
  const db = tempDb();
  afterAll(() => db.cleanup());

  it('every context and search is byte-identical with READ_WORKERS=0 and with 2 threads, errors included', async () => {
    const answers = async (workers: string) => {
      const t = await startTestApp({
        dbPath: db.path,
        clock: new FixedClock(new Date(CLOCK_AT)),
        env: { READ_WORKERS: workers },
      });
      try {
        if (workers === '0') await seed(t, 'same', 3);
        const out: Array<[number, string | null, string]> = [];
        for (const path of READS) {
          const r = await t.http('GET', `/v1/campaigns/same${path}`);
          out.push([r.status, r.headers.get('content-type'), r.text]);
        }
        const pool = t.app.get(ReadPool);
        threads = (pool as unknown as { pool: { threads: Worker[] } | null }).pool?.threads ?? [];
        return { out, stats: pool.stats() };
      } finally {
        await t.close();
      }
    };
    let threads: Worker[] = [];
    const inline = await answers('0');
    const threaded = await answers('2');
    expect(inline.stats).toEqual({ threads: 0, completed: 0, waiting: 0 });
    // Every read ran in a thread: the pool completed one task per read, errors (404 VIEWER_NOT_FOUND, 400) included.
    expect(threaded.stats.threads).toBe(2);
    expect(threaded.stats.completed).toBe(READS.length);
    expect(threaded.out.map((o) => o[0])).toEqual([200, 200, 200, 200, 200, 200, 404, 200, 200, 400]);
    expect(threaded.out).toEqual(inline.out);
    // The threads stopped with the app (graceful shutdown closes the pool).
    expect(threads).toHaveLength(2);
    for (const w of threads) expect(w.threadId).toBe(-1);
  });
});

describe('DESIGN §13 on sqlite::memory:', () => {
  it('reads run on the main thread: no other connection can see an in-memory database', async () => {
    const t = await startTestApp({ env: { DATABASE_URL: 'sqlite::memory:', READ_WORKERS: '2' } });
    try {
      await seed(t, 'mem', 1);
      expect((await t.http('GET', '/v1/campaigns/mem/context?agent=player&viewer=aria')).status).toBe(200);
      expect((await t.http('GET', '/v1/campaigns/mem/search?q=iron')).body.items.length).toBeGreaterThan(0);
      expect(t.app.get(ReadPool).stats().threads).toBe(0);
    } finally {
      await t.close();
    }
  });
});

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef';
const as = (token: string) => ({ authorization: `Bearer ${token}` });
/** An app with ALICE's and BOB's keys and READ_WORKERS `threads`, and a campaign `id` of 6 messages. */
async function twoKeys(threads: number, id: string, env: Record<string, string> = {}): Promise<TestApp> {
  const t = await startTestApp({
    env: { READ_WORKERS: String(threads), LOREKEEPER_API_KEYS: `${ALICE},${BOB}`, ...env },
    checkResponses: false,
  });
  await seed(t, id, 6, as(ALICE));
  return t;
}

describe('DESIGN §13: the read queue', () => {
  let t: TestApp;
  beforeAll(async () => (t = await twoKeys(1, 'busy', { READ_QUEUE: '3' })));
  afterAll(() => t.close());

  const context = (token: string) =>
    t.http(
      'GET',
      '/v1/campaigns/busy/context?agent=player&viewer=aria&query=iron%20ore&budget=4000',
      undefined,
      as(token),
    );

  it('past READ_QUEUE waiting reads, 503 BUSY problem+json with Retry-After; the others are served, identical', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, () => context(ALICE)));
    const busy = results.filter((r) => r.status === 503);
    const served = results.filter((r) => r.status === 200);
    expect(busy.length).toBeGreaterThan(0);
    expect(served.length).toBeGreaterThanOrEqual(4); // one running, READ_QUEUE (3) waiting
    expect(busy.length + served.length).toBe(40);
    for (const r of busy) {
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.headers.get('retry-after')).toBe('1');
      expect(r.body).toMatchObject({ status: 503, code: 'BUSY' });
    }
    expect(new Set(served.map((r) => r.text)).size).toBe(1);
    const metrics = await t.http('GET', '/metrics', undefined, as(ALICE));
    expect(metrics.text).toContain(`lorekeeper_reads_refused_total ${busy.length}\n`);
    expect(metrics.text).toContain('lorekeeper_reads_waiting 0\n');
    // Nothing stays queued, and the next read is served.
    expect((await context(ALICE)).status).toBe(200);
  });

  it("one key's burst delays itself: another key's read is served before most of the burst", async () => {
    const order: string[] = [];
    const burst = Array.from({ length: 3 }, () => context(ALICE).then((r) => void order.push(`alice:${r.status}`)));
    await new Promise((r) => setTimeout(r, 5));
    const single = context(BOB).then((r) => void order.push(`bob:${r.status}`));
    await Promise.all([...burst, single]);
    expect(order).toContain('bob:200');
    // Bob's read waits for the one running (and one more of Alice's if the first ended before it came), never for all.
    expect(order.indexOf('bob:200')).toBeLessThanOrEqual(2);
  });
});

describe('DESIGN §13: threads kept for the other callers', () => {
  let t: TestApp;
  beforeAll(async () => (t = await twoKeys(2, 'kept')));
  afterAll(() => t.close());

  const context = (token: string, viewer = 'aria') =>
    t.http('GET', `/v1/campaigns/kept/context?agent=player&viewer=${viewer}&budget=4000`, undefined, as(token));

  it("a burst beside a caller reading back to back: every read served, the burst's reads go on once the caller stops", async () => {
    const reference = await context(ALICE);
    // Bob reads one context after another while Alice's burst waits: the thread kept for Bob's next read between
    // two of them is given back to Alice's burst when Bob stops (no read of hers may wait for a read that never comes).
    const burst = Promise.all(Array.from({ length: 12 }, () => context(ALICE)));
    const bob: number[] = [];
    for (let i = 0; i < 4; i++) bob.push((await context(BOB)).status);
    const served = await burst;
    expect(bob).toEqual([200, 200, 200, 200]);
    expect(served.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(new Set(served.map((r) => r.text))).toEqual(new Set([reference.text]));
    const metrics = await t.http('GET', '/metrics', undefined, as(ALICE));
    expect(metrics.text).toContain('lorekeeper_reads_waiting 0\n');
  });
});

/** A raw socket to the app, from `localAddress` (127.0.0.x are all this machine's loopback). */
function openSocket(url: string, localAddress = '127.0.0.1'): Promise<Socket> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect({ port: Number(port), host: '127.0.0.1', localAddress }, () => resolve(s));
    s.on('error', reject);
  });
}

/** When the server closes the socket (ms since now), and what it sent. */
function closedAfter(s: Socket): Promise<{ ms: number; text: string }> {
  const started = performance.now();
  let text = '';
  s.on('data', (d) => (text += d.toString()));
  s.removeAllListeners('error');
  s.on('error', () => undefined);
  return new Promise((resolve) => s.on('close', () => resolve({ ms: performance.now() - started, text })));
}

/** GET over a connection of its own from `localAddress`. */
function getFrom(url: string, path: string, localAddress: string): Promise<HttpResult['status']> {
  return new Promise((resolve) => {
    const req = httpRequest(`${url}${path}`, { localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.setTimeout(10_000, () => req.destroy());
    req.end();
  });
}

describe('DESIGN §13: connections', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { HEADERS_TIMEOUT_MS: '500', MAX_CONNECTIONS_PER_IP: '5', READ_WORKERS: '0' } });
  });
  afterAll(() => t.close());

  it('closes a connection that sent nothing, and one with half a request head, after HEADERS_TIMEOUT_MS', async () => {
    const idle = closedAfter(await openSocket(t.url));
    const half = await openSocket(t.url);
    half.write('GET /health HTTP/1.1\r\nHost: x\r\n');
    const partial = closedAfter(half);
    for (const { ms } of await Promise.all([idle, partial])) {
      expect(ms).toBeGreaterThanOrEqual(400);
      expect(ms).toBeLessThan(3_000); // the timeout plus Node's 1 s check interval
    }
    expect((await partial).text).toMatch(/^HTTP\/1\.1 408/);
  });

  it('holds MAX_CONNECTIONS_PER_IP per address: the next one from it is closed, another address is served', async () => {
    const held = await Promise.all(Array.from({ length: 5 }, () => openSocket(t.url)));
    const extra = closedAfter(await openSocket(t.url));
    expect((await extra).text).toBe('');
    expect((await extra).ms).toBeLessThan(400); // closed at once, not by the head timeout
    expect(await getFrom(t.url, '/health', '127.0.0.2')).toBe(200);
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(await getFrom(t.url, '/health', '127.0.0.1')).toBe(200);
  });
});

describe('DESIGN §13: 2,000 idle sockets from one address', () => {
  it('keep nobody else out (defaults: 256 per address, 1,024 in all)', async () => {
    const t = await startTestApp({ env: { READ_WORKERS: '0' } });
    const idle: Socket[] = [];
    try {
      const opened = await Promise.allSettled(Array.from({ length: 2000 }, () => openSocket(t.url)));
      for (const o of opened) if (o.status === 'fulfilled') idle.push(o.value);
      for (const s of idle) s.on('error', () => undefined);
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push(await getFrom(t.url, '/health', `127.0.0.${2 + (i % 3)}`));
      expect(statuses.filter((s) => s === 200).length).toBe(20);
    } finally {
      for (const s of idle) s.destroy();
      await t.close();
    }
  });
});
