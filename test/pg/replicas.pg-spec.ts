import { Client } from 'pg';
import { MockAnthropic, startMockAnthropic, transcriptOf } from '../support/mock-anthropic';
import { ensureBuilt, ReplicaProcess, startReplica } from '../support/replica-process';
import { createTestSchema, TestSchema, testDatabaseUrl } from '../support/test-postgres';
import { describePg } from './describe-pg';

const TTL = 2000;
const POLL = 500;
const CAMPAIGNS = 50;
const CLIENTS = 12;
const RUN_MS = 9000;
const KILL_AT = 2000;
const TERM_AT = 5500;
/** Scheduling slack on a busy 2-core machine, on top of TTL + one poll. */
const GRACE = 1500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)];

interface MessageAck {
  kind: 'messages';
  campaign: string;
  version: number;
  indexes: number[];
  contents: string[];
}
interface MoveAck {
  kind: 'move';
  campaign: string;
  version: number;
  to: string;
}

describePg('three replicas on one PostgreSQL, one SIGKILLed and one SIGTERMed mid-run', () => {
  let schema: TestSchema;
  let db: Client;
  const mocks: MockAnthropic[] = [];
  let replicas: ReplicaProcess[] = [];

  beforeAll(async () => {
    ensureBuilt();
    schema = await createTestSchema(testDatabaseUrl()!);
    db = new Client({ connectionString: schema.url });
    await db.connect();
    for (let i = 0; i < 3; i++) {
      const mock = await startMockAnthropic();
      mock.setHandler((body) => ({ text: `Summary by r${i + 1} of ${transcriptOf(body).length} lines.`, delayMs: 30 }));
      mocks.push(mock);
    }
    replicas = await Promise.all(
      mocks.map((mock, i) =>
        startReplica(`r${i + 1}`, {
          DATABASE_URL: schema.url,
          LEASE_TTL_MS: String(TTL),
          LEASE_POLL_MS: String(POLL),
          SUMMARIZER: 'anthropic',
          ANTHROPIC_API_KEY: 'test-key',
          ANTHROPIC_BASE_URL: mock.baseUrl,
          MEMORY_CONCURRENCY: '8',
          SUMMARY_TIMEOUT_MS: '10000',
        }),
      ),
    );
  }, 120_000);

  afterAll(async () => {
    for (const r of replicas) r.kill('SIGKILL');
    await Promise.all(replicas.map((r) => r.exited));
    for (const m of mocks) await m.close();
    await db?.end();
    await schema?.drop();
  }, 30_000);

  it('loses no acknowledged write, keeps versions gapless, summarizes nothing twice, and takes over within the lease TTL + one poll', async () => {
    const [r1, r2, r3] = replicas;
    const alive = new Set(replicas);
    const failures: string[] = [];

    /** A client behind a load balancer: on a dead or draining replica, the same request (same key) goes to another. */
    async function send(
      method: string,
      path: string,
      body: unknown,
      key?: string,
    ): Promise<{ status: number; body: any }> {
      for (let attempt = 0; attempt < 100; attempt++) {
        const r = pick([...alive]);
        try {
          const res = await fetch(`${r.url}${path}`, {
            method,
            headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
            body: body === undefined ? undefined : JSON.stringify(body),
            signal: AbortSignal.timeout(20_000),
          });
          const text = await res.text();
          if (res.status === 503) continue;
          const parsed = text ? JSON.parse(text) : undefined;
          if (res.status >= 500) failures.push(`${method} ${path} via ${r.id} → ${res.status} ${text}`);
          return { status: res.status, body: parsed };
        } catch {
          await sleep(50);
        }
      }
      throw new Error(`${method} ${path}: no replica answered`);
    }
    const ok = async (method: string, path: string, body?: unknown, key?: string) => {
      const res = await send(method, path, body, key);
      if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };

    // 50 campaigns, set up through all three replicas.
    const ids = Array.from({ length: CAMPAIGNS }, (_, i) => `c${i}`);
    const at = new Map<string, string>();
    await Promise.all(
      ids.map(async (id) => {
        await ok('POST', '/v1/campaigns', { id, name: `Campaign ${id}` });
        await ok('PUT', `/v1/campaigns/${id}/locations/a`, { name: 'Harbour' });
        await ok('PUT', `/v1/campaigns/${id}/locations/b`, { name: 'Lighthouse' });
        await ok('PUT', `/v1/campaigns/${id}/npcs/bren`, { name: 'Bren', locationId: 'a' });
        await ok('POST', `/v1/campaigns/${id}/commands/change-location`, { toLocationId: 'a' });
        at.set(id, 'a');
      }),
    );

    const acks: Array<MessageAck | MoveAck> = [];
    const end = Date.now() + RUN_MS;
    const client = async (n: number) => {
      for (let seq = 0; Date.now() < end; seq++) {
        const mine = ids.filter((id) => Number(id.slice(1)) % CLIENTS === n);
        const moving = Math.random() < 0.2;
        const campaign = moving ? pick(mine) : pick(ids);
        const key = `k-${n}-${seq}`;
        // Only client (index mod CLIENTS) moves a campaign, so it knows where the party is.
        if (moving) {
          const to = at.get(campaign) === 'a' ? 'b' : 'a';
          const res = await send(
            'POST',
            `/v1/campaigns/${campaign}/commands/change-location`,
            { toLocationId: to },
            key,
          );
          if (res.status !== 202) failures.push(`move ${campaign} → ${res.status} ${JSON.stringify(res.body)}`);
          else {
            at.set(campaign, to);
            acks.push({ kind: 'move', campaign, version: res.body.version, to });
          }
        } else {
          const contents = Array.from(
            { length: 1 + (seq % 2) },
            (_, i) => `${key}-${i} ${Math.random() < 0.3 ? 'Bren nods.' : 'The wind rises.'}`,
          );
          const res = await send(
            'POST',
            `/v1/campaigns/${campaign}/messages`,
            { messages: contents.map((content) => ({ role: 'player', content })) },
            key,
          );
          if (res.status !== 201) failures.push(`messages ${campaign} → ${res.status} ${JSON.stringify(res.body)}`);
          else
            acks.push({ kind: 'messages', campaign, version: res.body.version, indexes: res.body.indexes, contents });
        }
      }
    };
    // Readers: version and processedVersion never go backwards, whichever replica answers.
    const seen = new Map<string, { version: number; processed: number }>();
    const reader = async () => {
      while (Date.now() < end) {
        const campaign = pick(ids);
        // What was seen before this request was sent: the other reader's answer to a request sent earlier may arrive
        // later and be older, which is no step back.
        const before = seen.get(campaign) ?? { version: 0, processed: 0 };
        const res = await send('GET', `/v1/campaigns/${campaign}`, undefined);
        if (res.body.version < before.version || res.body.processedVersion < before.processed)
          failures.push(
            `${campaign} went backwards: ${JSON.stringify(before)} → ${res.body.version}/${res.body.processedVersion}`,
          );
        const now = seen.get(campaign) ?? before;
        seen.set(campaign, {
          version: Math.max(now.version, res.body.version),
          processed: Math.max(now.processed, res.body.processedVersion),
        });
      }
    };
    // What each replica reports, sampled until it goes away.
    const ready = new Map<string, any>();
    const sampler = async () => {
      while (Date.now() < end + 20_000 && alive.size) {
        for (const r of [...alive]) {
          const res = await fetch(`${r.url}/health/ready`).catch(() => null);
          if (res?.ok) ready.set(r.id, await res.json());
        }
        await sleep(200);
      }
    };

    const chaos = async () => {
      await sleep(KILL_AT);
      // r1 dies in the middle of summary calls: from now on its model never answers, so it keeps
      // (and renews) the leases it is working under, with work waiting behind them. Without this a
      // fast r1 may hold nothing at the instant of the kill, and there would be nothing to take over.
      const asked = mocks[0].requests.length;
      mocks[0].setHandler(() => ({ hang: true }));
      const r1Behind = `SELECT l.campaign_id FROM leases l JOIN campaigns c ON c.id = l.campaign_id LEFT JOIN memory_checkpoints k ON k.campaign_id = c.id
        WHERE l.owner = 'r1' AND l.expires_at > clock_timestamp() AND coalesce(k.processed_version, 0) < c.version`;
      // Until a summary call hangs: its campaign stays behind under r1's lease (a lease held while
      // r1 just moves a checkpoint is gone a moment later).
      for (const until = Date.now() + 5000; Date.now() < until; await sleep(50)) {
        if (mocks[0].requests.length > asked && (await db.query(r1Behind)).rows.length > 0) break;
      }
      alive.delete(r1);
      r1.kill('SIGKILL');
      // A campaign r1 held while behind stays behind until someone takes its lease over.
      const { rows } = await db.query(`SELECT clock_timestamp() AS now,
        array(SELECT campaign_id FROM leases WHERE owner = 'r1' AND expires_at > clock_timestamp()) AS held,
        array(${r1Behind}) AS behind`);
      const killedAt: Date = rows[0].now;
      const heldAtKill: string[] = rows[0].held;
      const behindAtKill: string[] = rows[0].behind;
      await sleep(TERM_AT - KILL_AT);
      const last = await fetch(`${r2.url}/health/ready`).then((r) => r.json());
      ready.set('r2', last);
      alive.delete(r2);
      const termAt = Date.now();
      r2.kill('SIGTERM');
      const exit = await r2.exited;
      return { killedAt, heldAtKill, behindAtKill, termMs: exit.at - termAt, exit };
    };

    const sampling = sampler();
    const [kill] = await Promise.all([
      chaos(),
      ...Array.from({ length: CLIENTS }, (_, n) => client(n)),
      reader(),
      reader(),
    ]);

    // Every campaign catches up on the survivor.
    const settleBy = Date.now() + 60_000;
    for (;;) {
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM campaigns c LEFT JOIN memory_checkpoints k ON k.campaign_id = c.id WHERE coalesce(k.processed_version, 0) < c.version`,
      );
      if (rows[0].n === 0) break;
      if (Date.now() > settleBy) throw new Error(`${rows[0].n} campaigns never caught up\n${r3.log()}`);
      await sleep(200);
    }
    ready.set('r3', await fetch(`${r3.url}/health/ready`).then((r) => r.json()));
    alive.clear();
    await sampling;

    expect(failures).toEqual([]);
    expect(acks.filter((a) => a.kind === 'move').length).toBeGreaterThan(0);
    expect(acks.length).toBeGreaterThan(CAMPAIGNS);

    // Every acknowledged write is there, exactly once.
    const messages = await db.query('SELECT campaign_id, idx, content FROM messages');
    const content = new Map(messages.rows.map((r) => [`${r.campaign_id}#${r.idx}`, r.content as string]));
    const games = await db.query(
      `SELECT stream_id, stream_version, type, data FROM events WHERE stream_id LIKE 'campaign-%'`,
    );
    const event = new Map(games.rows.map((r) => [`${r.stream_id}@${r.stream_version}`, r]));
    const missing: string[] = [];
    for (const ack of acks) {
      if (ack.kind === 'messages') {
        ack.indexes.forEach((idx, i) => {
          if (content.get(`${ack.campaign}#${idx}`) !== ack.contents[i]) missing.push(`${ack.campaign} message ${idx}`);
        });
      } else {
        const e = event.get(`campaign-${ack.campaign}@${ack.version}`);
        if (e?.type !== 'LocationChanged' || JSON.parse(e.data).toLocationId !== ack.to)
          missing.push(`${ack.campaign} move @${ack.version}`);
      }
    }
    expect(missing).toEqual([]);
    const tokens = messages.rows.map((r) => String(r.content).split(' ')[0]);
    expect(tokens.length).toBe(new Set(tokens).size);

    // Versions are gapless in every stream; every campaign's checkpoint reached its version.
    const streams = await db.query(
      'SELECT stream_id, count(*)::int AS n, min(stream_version) AS lo, max(stream_version) AS hi FROM events GROUP BY stream_id',
    );
    expect(streams.rows.filter((s) => s.lo !== 1 || s.hi !== s.n)).toEqual([]);
    const campaigns =
      await db.query(`SELECT c.id, c.version, k.processed_version, (SELECT max(stream_version) FROM events WHERE stream_id = 'campaign-' || c.id) AS hi
      FROM campaigns c LEFT JOIN memory_checkpoints k ON k.campaign_id = c.id`);
    expect(campaigns.rows).toHaveLength(CAMPAIGNS);
    expect(campaigns.rows.filter((c) => c.version !== c.hi || c.processed_version !== c.version)).toEqual([]);

    // No (scope, subject, trigger) was summarized twice, in the log or in the projection.
    const recorded = await db.query(
      `SELECT stream_id, data FROM events WHERE stream_id LIKE 'memory-%' AND type = 'MemoryRecorded'`,
    );
    const keys = recorded.rows.map((r) => {
      const d = JSON.parse(r.data);
      return `${r.stream_id}/${d.scope}/${d.subjectId}/${d.triggerVersion}`;
    });
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.length).toBe(new Set(keys).size);
    const [{ n: memoryRows }] = (await db.query('SELECT count(*)::int AS n FROM memories')).rows;
    expect(memoryRows).toBe(keys.length);

    // SIGTERM: drained, released its leases, exited within 10 s.
    if (!(kill.exit.signal === 'SIGTERM' || kill.exit.code === 0))
      throw new Error(`r2 exit ${JSON.stringify(kill.exit)} after ${kill.termMs} ms\n${r2.log(30)}`);
    expect(kill.termMs).toBeLessThan(10_000);
    const { rows: r2Leases } = await db.query(`SELECT campaign_id FROM leases WHERE owner = 'r2'`);
    expect(r2Leases).toEqual([]);

    // Takeover of the SIGKILLed replica's leases: by the others, within TTL + one poll (+ slack).
    const takeovers = [...ready.values()].flatMap((s) => s.replica.recentTakeovers).filter((t) => t.from === 'r1');
    const delays = takeovers.map((t) => ({
      ...t,
      afterKillMs: new Date(t.acquiredAt).getTime() - kill.killedAt.getTime(),
    }));
    process.stdout.write(
      `\nfailover: r1 SIGKILLed holding ${kill.heldAtKill.length} leases (${kill.behindAtKill.length} with work waiting); ${delays.length} taken over (TTL ${TTL} ms, poll ${POLL} ms)\n` +
        delays
          .map((d) =>
            d.afterKillMs < 0
              ? `  ${d.campaignId}: taken ${-d.afterKillMs} ms before the kill (r1 did not renew within the TTL), ${d.afterExpiryMs} ms after expiry\n`
              : `  ${d.campaignId}${kill.behindAtKill.includes(d.campaignId) ? ' (work waiting)' : ''}: ${d.afterKillMs} ms after the kill, ${d.afterExpiryMs} ms after expiry\n`,
          )
          .join('') +
        `  r2 SIGTERM → exit in ${kill.termMs} ms; ${acks.length} acknowledged writes, ${keys.length} memories\n`,
    );
    // A replica starved of CPU for longer than the TTL may lose a lease while alive; that is a takeover too.
    const afterKill = delays.filter((d) => d.afterKillMs >= 0);
    expect(kill.behindAtKill.length).toBeGreaterThan(0);
    expect(afterKill.length).toBeGreaterThan(0);
    for (const d of afterKill) expect(kill.heldAtKill).toContain(d.campaignId);
    // Work that was waiting on the dead replica's lease moved within TTL + one poll (+ slack).
    const waited = kill.behindAtKill.map((id) => delays.find((d) => d.campaignId === id)?.afterKillMs ?? Infinity);
    for (const ms of waited) expect(ms).toBeLessThanOrEqual(TTL + POLL + GRACE);
  }, 180_000);
});
