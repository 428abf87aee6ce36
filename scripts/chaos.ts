/**
 * `npm run chaos`: crash-safety harness. Runs the BUILT service as a child process on a SQLite file with
 * the Anthropic summarizer against the local mock (random delays), drives it with concurrent clients,
 * SIGKILLs it at random moments (during appends, during summaries, right after a summary while the
 * worker commits), restarts it on the same file, replays every unanswered request with its
 * Idempotency-Key, and verifies the durable state after each cycle. Exits 1 on any loss or duplicate.
 * With timelines (DESIGN §10, on by default in `npm run chaos`), owners also fork their campaigns and rewind and
 * retract on those forks (never on the originals, whose log the loss checks read), and three more kill modes cut
 * the service during a fork, during a rewind and during the revision that follows a retraction; after each restart
 * every fork is absent or whole, and no memory is left withheld but by a failed revision (chaos-withheld.ts).
 *
 *   npm run chaos -- --cycles 50 --campaigns 20 --clients 6 --seed 1 [--no-timelines]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../bench/support/sqlite';
import { judgeWithheld, WithheldRow } from './chaos-withheld';
import { defaultMockHandler, MockAnthropic, startMockAnthropic } from '../test/support/mock-anthropic';
import { ensureBuilt, freePort, ServiceProcess, startServiceProcess } from '../test/support/service-process';

export type KillMode =
  'random' | 'during-append' | 'during-summary' | 'after-summary' | 'during-fork' | 'during-rewind' | 'during-revision';
const KILL_MODES: KillMode[] = ['random', 'during-append', 'during-summary', 'after-summary'];
const TIMELINE_KILL_MODES: KillMode[] = ['during-fork', 'during-rewind', 'during-revision'];

export interface ChaosOptions {
  cycles: number;
  campaigns: number;
  clients: number;
  seed?: number;
  log?: (line: string) => void;
  /** Skip `ensureBuilt()` (the npm script has just built). */
  skipBuild?: boolean;
  /** Fork, rewind and retract (on forks), with their kill modes (default off here, on in `npm run chaos`). */
  timelines?: boolean;
  /** The kill modes to draw from (default: all that apply). */
  modes?: KillMode[];
}

export interface ChaosReport {
  cycles: number;
  acknowledged: number;
  lost: number;
  duplicates: number;
  gaps: number;
  cursorMismatches: number;
  notCaughtUp: number;
  /** Requests without an answer when the service died (all replayed with their key). */
  inFlightAtKill: number;
  /** Answered requests whose reply a client "lost" and re-sent after the restart (must replay unchanged). */
  repliesDropped: number;
  kills: Record<string, number>;
  events: number;
  messages: number;
  memories: number;
  skipped: number;
  summaryCalls: number;
  /** Timelines: acknowledged forks, rewinds and retractions; forks checked whole after each restart. */
  forks: number;
  rewinds: number;
  retractions: number;
  forksVerified: number;
  /** Memories kept withheld at the last check because their last revision failed (§10: until a later trigger). */
  withheldBySkippedRevision: number;
  failures: string[];
  seed: number;
  durationMs: number;
}

/** Small seeded PRNG (mulberry32): the schedule is reproducible, the timing is not. */
class Rng {
  constructor(private s: number) {}
  next(): number {
    this.s = (this.s + 0x6d2b79f5) | 0;
    let t = Math.imul(this.s ^ (this.s >>> 15), 1 | this.s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)];
  }
}

interface Op {
  campaign: string;
  key: string;
  kind:
    | 'create'
    | 'setup'
    | 'messages'
    | 'move'
    | 'objective'
    | 'act'
    | 'encounter'
    | 'round'
    | 'fork'
    | 'rewind'
    | 'retract';
  method: string;
  path: string;
  body: unknown;
  /** Events the request appends when it lands. */
  events: number;
  contents?: string[];
  toLocation?: string;
  /** fork: the new campaign; rewind with keepAs: the fork it keeps. */
  forkId?: string;
}

/** A fork the harness made (or may have made: its request was in flight at a kill). */
interface ForkModel {
  id: string;
  owner: number;
  /** The campaign it was forked from and whether that one is an original (whose log never loses a prefix). */
  parent: string;
  fromOriginal: boolean;
  acknowledged: boolean;
  /** Rewinds acknowledged / sent without an answer yet (the timeline lies between). */
  rewinds: number;
  rewindsInFlight: number;
}

interface Ack {
  op: Op;
  status: number;
  body: any;
  replayed: boolean;
}

interface Model {
  id: string;
  owner: number;
  location: string;
  locations: string[];
  npcs: Array<{ id: string; name: string }>;
  objective: number;
  act: number;
  encounter: number;
}

class Unreachable extends Error {}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NAMES = ['Mira', 'Jonas', 'Thessaly', 'Brannoc', 'Ysolde', 'Corvin'];

/** Runs the harness; resolves with the figures (never throws for a verification failure). */
export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  const seed = o.seed ?? Date.now() % 1_000_000;
  const rng = new Rng(seed);
  const log = o.log ?? (() => undefined);
  if (!o.skipBuild) ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'lorekeeper-chaos-'));
  const dbPath = join(dir, 'chaos.db');
  const report: ChaosReport = {
    cycles: 0,
    acknowledged: 0,
    lost: 0,
    duplicates: 0,
    gaps: 0,
    cursorMismatches: 0,
    notCaughtUp: 0,
    inFlightAtKill: 0,
    repliesDropped: 0,
    kills: {},
    events: 0,
    messages: 0,
    memories: 0,
    skipped: 0,
    summaryCalls: 0,
    forks: 0,
    rewinds: 0,
    retractions: 0,
    forksVerified: 0,
    withheldBySkippedRevision: 0,
    failures: [],
    seed,
    durationMs: 0,
  };
  const fail = (msg: string) => {
    if (report.failures.length < 200) report.failures.push(msg);
    log(`FAIL ${msg}`);
  };

  // The model: random delays, a few 500s; kill hooks armed per cycle.
  let onSummaryRequest: ((n: number) => { delayMs: number } | null) | null = null;
  const timelines = o.timelines ?? false;
  const modes = o.modes ?? (timelines ? [...KILL_MODES, ...TIMELINE_KILL_MODES] : KILL_MODES);
  const forks: ForkModel[] = [];
  let forkSeq = 0;
  /** Kill hooks for the timeline modes: called when such a request is sent / a retraction is acknowledged. */
  let onTimelineSent: ((kind: Op['kind']) => void) | null = null;
  let onRetracted: (() => void) | null = null;
  const mock: MockAnthropic = await startMockAnthropic();
  mock.setHandler(async (body, n) => {
    report.summaryCalls++;
    const hook = onSummaryRequest?.(n) ?? null;
    if (hook) return { ...(defaultMockHandler(body, n) as { text: string }), delayMs: hook.delayMs };
    if (rng.next() < 0.04) return { status: 500, delayMs: rng.int(0, 50) };
    return { ...(defaultMockHandler(body, n) as { text: string }), delayMs: rng.int(0, 250) };
  });

  const port = await freePort();
  const env = {
    SUMMARIZER: 'anthropic',
    ANTHROPIC_API_KEY: 'chaos-test-key',
    ANTHROPIC_BASE_URL: mock.baseUrl,
    SUMMARY_TIMEOUT_MS: '4000',
    SUMMARY_ATTEMPTS: '2',
    MEMORY_CONCURRENCY: '4',
  };
  let svc: ServiceProcess = await startServiceProcess({ dbPath, port, env });
  const base = () => svc.url;

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    let res: Response;
    try {
      res = await fetch(`${base()}${path}`, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(45_000),
      });
    } catch (err) {
      throw new Unreachable((err as Error).message);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw new Unreachable((err as Error).message);
    }
    return {
      status: res.status,
      body: text ? JSON.parse(text) : undefined,
      replayed: res.headers.get('idempotent-replayed') === 'true',
    };
  };

  const acks: Ack[] = [];
  let keySeq = 0;
  const newKey = (prefix: string) => `${prefix}-${seed}-${++keySeq}`;

  /** Sends until a definite answer, through crashes (same key, same body). */
  const settleOp = async (op: Op): Promise<Ack> => {
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await call(op.method, op.path, op.body, { 'idempotency-key': op.key });
        return { op, status: r.status, body: r.body, replayed: r.replayed };
      } catch (err) {
        if (!(err instanceof Unreachable) || attempt > 100) throw err;
        await sleep(100);
      }
    }
  };

  // Campaigns: four locations, one NPC each, a long quest; the party starts in the first location.
  const models: Model[] = [];
  for (let i = 0; i < o.campaigns; i++) {
    const id = `chaos-${seed}-${i}`;
    const m: Model = {
      id,
      owner: i % o.clients,
      location: 'loc0',
      locations: ['loc0', 'loc1', 'loc2', 'loc3'],
      npcs: [],
      objective: 0,
      act: 0,
      encounter: 0,
    };
    const c = `/v1/campaigns/${id}`;
    const setup: Op[] = [
      {
        campaign: id,
        key: newKey('create'),
        kind: 'create',
        method: 'POST',
        path: '/v1/campaigns',
        body: { id, name: `Chaos ${i}` },
        events: 1,
      },
    ];
    m.locations.forEach((l, j) => {
      setup.push({
        campaign: id,
        key: newKey('setup'),
        kind: 'setup',
        method: 'PUT',
        path: `${c}/locations/${l}`,
        body: { name: `Location ${j} of ${i}` },
        events: 1,
      });
      const npc = { id: `npc${j}`, name: NAMES[(i + j) % NAMES.length] + (j > 1 ? ` ${j}` : '') };
      m.npcs.push(npc);
      setup.push({
        campaign: id,
        key: newKey('setup'),
        kind: 'setup',
        method: 'PUT',
        path: `${c}/npcs/${npc.id}`,
        body: { name: npc.name, locationId: l },
        events: 1,
      });
    });
    setup.push({
      campaign: id,
      key: newKey('setup'),
      kind: 'setup',
      method: 'PUT',
      path: `${c}/quests/main`,
      body: {
        name: 'The long road',
        objectives: Array.from({ length: 100 }, (_, k) => ({ id: `o${k}`, name: `Step ${k}` })),
      },
      events: 1,
    });
    setup.push({
      campaign: id,
      key: newKey('setup'),
      kind: 'move',
      method: 'POST',
      path: `${c}/commands/change-location`,
      body: { toLocationId: 'loc0' },
      events: 1,
      toLocation: 'loc0',
    });
    for (const op of setup) {
      const ack = await settleOp(op);
      if (ack.status >= 300)
        throw new Error(`setup ${op.method} ${op.path} → ${ack.status} ${JSON.stringify(ack.body)}`);
      acks.push(ack);
    }
    models.push(m);
  }

  // Per-cycle state shared with the clients.
  let running = false;
  let bigBatchArmed = false;
  let onBigBatchSent: (() => void) | null = null;
  const pending: Op[] = [];
  const lostReplies: Array<{ op: Op; first: unknown }> = [];

  const messageOp = (m: Model, big: boolean): Op => {
    const key = newKey('msg');
    const n = big ? rng.int(200, 350) : rng.int(1, 4);
    const contents = Array.from({ length: n }, (_, j) => {
      const npc = rng.pick(m.npcs);
      const mention = rng.next() < 0.5 ? ` ${npc.name} nods.` : '';
      return `chaos ${key}#${j}: the party talks about ${rng.pick(['the map', 'gold', 'the storm', 'a debt', 'the tower'])}.${mention}`;
    });
    return {
      campaign: m.id,
      key,
      kind: 'messages',
      method: 'POST',
      path: `/v1/campaigns/${m.id}/messages`,
      body: {
        messages: contents.map((content, j) => ({
          role: rng.pick(['player', 'dm', 'npc', 'narrator']),
          speaker: j % 2 ? 'Aria' : undefined,
          content,
        })),
      },
      events: n,
      contents,
    };
  };

  const ownerOp = (m: Model): Op => {
    const c = `/v1/campaigns/${m.id}`;
    const r = rng.next();
    if (r < 0.45) {
      const to = rng.pick(m.locations.filter((l) => l !== m.location));
      return {
        campaign: m.id,
        key: newKey('move'),
        kind: 'move',
        method: 'POST',
        path: `${c}/commands/change-location`,
        body: { toLocationId: to },
        events: 1,
        toLocation: to,
      };
    }
    if (r < 0.65 && m.objective < 100)
      return {
        campaign: m.id,
        key: newKey('obj'),
        kind: 'objective',
        method: 'POST',
        path: `${c}/commands/complete-objective`,
        body: { questId: 'main', objectiveId: `o${m.objective}` },
        events: 1,
      };
    if (r < 0.8)
      return {
        campaign: m.id,
        key: newKey('act'),
        kind: 'act',
        method: 'POST',
        path: `${c}/commands/progress-act`,
        body: { actId: `act-${m.act + 1}` },
        events: 1,
      };
    if (r < 0.95)
      return {
        campaign: m.id,
        key: newKey('enc'),
        kind: 'encounter',
        method: 'POST',
        path: `${c}/commands/update-location-state`,
        body: { locationId: m.location, completeEncounter: `enc-${m.encounter + 1}` },
        events: 1,
      };
    return {
      campaign: m.id,
      key: newKey('round'),
      kind: 'round',
      method: 'POST',
      path: `${c}/commands/end-round`,
      body: {},
      events: 1,
    };
  };

  /** The model follows only answered commands: a pending one is replayed before anything else. */
  const applyToModel = (ack: Ack) => {
    const m = models.find((x) => x.id === ack.op.campaign);
    if (!m || ack.status >= 300) return;
    if (ack.op.kind === 'move') m.location = ack.op.toLocation!;
    if (ack.op.kind === 'objective') m.objective++;
    if (ack.op.kind === 'act') m.act++;
    if (ack.op.kind === 'encounter') m.encounter++;
  };

  /**
   * A fork, rewind or retraction by client `n` (null when there is nothing to do yet). Rewinds and retractions go to
   * the client's own acknowledged forks only, and read the fork first, so each request is valid when sent.
   */
  const timelineOp = async (n: number, mine: Model[]): Promise<Op | null> => {
    const own = forks.filter((f) => f.owner === n && f.acknowledged && f.rewindsInFlight === 0);
    const r = rng.next();
    if (own.length === 0 || r < 0.3) {
      if (mine.length === 0 || forks.length >= o.campaigns * 3) return null;
      const parent = rng.pick(mine);
      const forkId = `${parent.id}-f${++forkSeq}`;
      forks.push({
        id: forkId,
        owner: n,
        parent: parent.id,
        fromOriginal: true,
        acknowledged: false,
        rewinds: 0,
        rewindsInFlight: 0,
      });
      return {
        campaign: parent.id,
        key: newKey('fork'),
        kind: 'fork',
        method: 'POST',
        path: `/v1/campaigns/${parent.id}/fork`,
        body: { id: forkId, name: `Fork ${forkSeq}` },
        events: 0,
        forkId,
      };
    }
    const f = rng.pick(own);
    const view = await call('GET', `/v1/campaigns/${f.id}`);
    if (view.status !== 200) return null;
    const base = (view.body.parent?.version ?? 0) + 1; // never rewind past the fork's own CampaignForked
    if (r < 0.6 && view.body.version > base) {
      const keep = rng.next() < 0.5 ? `${f.id}-k${++forkSeq}` : undefined;
      if (keep)
        forks.push({
          id: keep,
          owner: n,
          parent: f.id,
          fromOriginal: false,
          acknowledged: false,
          rewinds: 0,
          rewindsInFlight: 0,
        });
      f.rewindsInFlight++;
      return {
        campaign: f.id,
        key: newKey('rewind'),
        kind: 'rewind',
        method: 'POST',
        path: `/v1/campaigns/${f.id}/rewind`,
        body: { toVersion: rng.int(base, view.body.version - 1), ...(keep ? { keepAs: keep } : {}) },
        events: 0,
        forkId: keep,
      };
    }
    const listed = await call('GET', `/v1/campaigns/${f.id}/messages?includeRetracted=true&limit=1000`);
    const items = (listed.body?.items ?? []) as { index: number; retracted?: unknown }[];
    const open = items.filter((x) => !x.retracted).map((x) => x.index);
    if (listed.status !== 200 || open.length === 0) return null;
    return {
      campaign: f.id,
      key: newKey('retract'),
      kind: 'retract',
      method: 'POST',
      path: `/v1/campaigns/${f.id}/messages/retract`,
      body: { indexes: [rng.pick(open)], reason: 'chaos' },
      events: 1,
    };
  };

  /** What an answered fork, rewind or retraction changes in the harness's view of the forks. */
  const applyTimeline = (op: Op, status: number) => {
    if (op.kind === 'rewind') {
      const f = forks.find((x) => x.id === op.campaign);
      if (f) {
        f.rewindsInFlight = Math.max(0, f.rewindsInFlight - 1);
        if (status < 300) f.rewinds++;
      }
    }
    if ((op.kind === 'fork' || op.kind === 'rewind') && op.forkId && status < 300) {
      const f = forks.find((x) => x.id === op.forkId);
      if (f) f.acknowledged = true;
    }
    if (status < 300) {
      if (op.kind === 'fork') report.forks++;
      if (op.kind === 'rewind') report.rewinds++;
      if (op.kind === 'retract') {
        report.retractions++;
        onRetracted?.();
      }
    }
  };

  const client = async (n: number) => {
    const mine = models.filter((m) => m.owner === n);
    while (running) {
      let timelineCall: Op | null = null;
      if (timelines && rng.next() < 0.12) {
        try {
          timelineCall = await timelineOp(n, mine);
        } catch (err) {
          if (!(err instanceof Unreachable)) throw err;
          return; // the service died while the client looked at its fork
        }
      }
      const useOwner = !timelineCall && mine.length > 0 && rng.next() < 0.3;
      const big = !timelineCall && !useOwner && bigBatchArmed;
      if (big) bigBatchArmed = false;
      const op = timelineCall ?? (useOwner ? ownerOp(rng.pick(mine)) : messageOp(rng.pick(models), big));
      const sending = call(op.method, op.path, op.body, { 'idempotency-key': op.key });
      if (big) onBigBatchSent?.();
      if (timelineCall) onTimelineSent?.(op.kind);
      try {
        const r = await sending;
        const ack = { op, status: r.status, body: r.body, replayed: r.replayed };
        if (r.status >= 300)
          fail(
            `cycle ${report.cycles + 1}: ${op.method} ${op.path} → ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`,
          );
        applyToModel(ack);
        applyTimeline(op, r.status);
        // A client that never saw this answer (a dropped reply) sends the request again after the restart.
        if (r.status < 300 && rng.next() < 0.08) lostReplies.push({ op, first: r.body });
        else acks.push(ack);
      } catch (err) {
        if (!(err instanceof Unreachable)) throw err;
        pending.push(op);
        return; // the service is gone: this client waits for the restart
      }
    }
  };

  for (let cycle = 1; cycle <= o.cycles; cycle++) {
    const mode = rng.pick(modes);
    let killedBy = mode;
    let killed = false;
    const kill = () => {
      if (killed) return;
      killed = true;
      svc.kill('SIGKILL');
    };
    const fallback = setTimeout(() => {
      if (!killed) killedBy = `${mode}-fallback` as KillMode;
      kill();
    }, 5_000);
    if (mode === 'random') setTimeout(kill, rng.int(150, 1500));
    if (mode === 'during-append') {
      setTimeout(
        () => {
          onBigBatchSent = () => setTimeout(kill, rng.int(0, 40));
          bigBatchArmed = true;
        },
        rng.int(100, 600),
      );
    }
    if (mode === 'during-fork' || mode === 'during-rewind') {
      const want = mode === 'during-fork' ? 'fork' : 'rewind';
      setTimeout(
        () => {
          onTimelineSent = (kind) => {
            if (kind !== want) return;
            onTimelineSent = null;
            setTimeout(kill, rng.int(0, 30));
          };
        },
        rng.int(50, 400),
      );
    }
    if (mode === 'during-revision') {
      // The model call that follows an acknowledged retraction is (nearly always) its revision: hold it, then kill.
      onRetracted = () => {
        onRetracted = null;
        onSummaryRequest = () => {
          if (killed) return null;
          onSummaryRequest = null;
          setTimeout(kill, rng.int(5, 150));
          return { delayMs: 2_000 };
        };
      };
    }
    if (mode === 'during-summary' || mode === 'after-summary') {
      const armAt = Date.now() + rng.int(100, 800);
      onSummaryRequest = () => {
        if (Date.now() < armAt || killed) return null;
        onSummaryRequest = null;
        if (mode === 'during-summary') {
          setTimeout(kill, rng.int(5, 150));
          return { delayMs: 2_000 };
        }
        const delay = rng.int(20, 120);
        setTimeout(kill, delay + rng.int(0, 60));
        return { delayMs: delay };
      };
    }

    running = true;
    const clients = Array.from({ length: o.clients }, (_, n) => client(n));
    await svc.exited;
    if (!killed) fail(`cycle ${cycle}: the service exited on its own:\n${svc.output().slice(-2000)}`);
    scanErrors(cycle, svc.output());
    running = false;
    clearTimeout(fallback);
    onSummaryRequest = null;
    onTimelineSent = null;
    onRetracted = null;
    onBigBatchSent = null;
    bigBatchArmed = false;
    await Promise.all(clients);
    report.kills[killedBy] = (report.kills[killedBy] ?? 0) + 1;
    report.inFlightAtKill += pending.length;

    svc = await startServiceProcess({ dbPath, port, env });
    // Replay what was in flight at the kill: the same key and body, until a definite answer.
    const replays = pending.splice(0);
    for (const op of replays) {
      const ack = await settleOp(op);
      if (ack.status >= 300)
        fail(
          `cycle ${cycle}: replay of ${op.method} ${op.path} (${op.key}) → ${ack.status} ${JSON.stringify(ack.body).slice(0, 200)}`,
        );
      acks.push(ack);
      applyToModel(ack);
      applyTimeline(op, ack.status);
    }
    // Dropped replies: the same request again must be answered from the idempotency record, unchanged.
    const dropped = lostReplies.splice(0);
    for (const { op, first } of dropped) {
      const ack = await settleOp(op);
      if (ack.status >= 300 || !ack.replayed || JSON.stringify(ack.body) !== JSON.stringify(first)) {
        fail(
          `cycle ${cycle}: re-sent ${op.key} → ${ack.status}, replayed ${ack.replayed}, ${JSON.stringify(ack.body).slice(0, 120)} (first answer ${JSON.stringify(first).slice(0, 120)})`,
        );
      }
      acks.push(ack);
    }
    report.repliesDropped += dropped.length;
    report.cycles = cycle;
    const v = await verify(cycle);
    if (timelines) await verifyForks(cycle);
    log(
      `cycle ${cycle}/${o.cycles}: killed ${killedBy}, ${replays.length} in flight, ${acks.length} acknowledged so far, ${v.events} events, ${v.memories} memories, ${v.skipped} skipped`,
    );
  }

  /**
   * Every fork is absent (only if its request was never acknowledged) or whole: a gapless game stream whose first
   * P events are its parent's and whose P + 1st is its CampaignForked; messages = the parent's first N(P) (plus none:
   * forks get no new messages here); a memory stream that starts with the parent's and then only moves forward; no
   * memory event triggered above the game version; a timeline that counts its rewinds; nothing left withheld once
   * the worker caught up.
   */
  /**
   * The context once the worker has processed `version`: read-your-writes waits of 30 s, again while each wait saw
   * progress. After a kill the backlog (every summary the dead process had not committed, with the mock's failures
   * and retries) can take longer than one wait at ~30 memories/s on 2 cores; a worker that stops moving still fails.
   */
  async function caughtUp(campaignId: string, version: number) {
    let seen = -1;
    for (;;) {
      const r = await call('GET', `/v1/campaigns/${campaignId}/context?minVersion=${version}&waitMs=30000`);
      const at = r.body?.processedVersion as number | undefined;
      if (at === undefined || at >= version || at <= seen) return r.body;
      seen = at;
    }
  }

  async function verifyForks(cycle: number) {
    for (const f of forks) {
      const where = `cycle ${cycle} fork ${f.id}`;
      const view = await call('GET', `/v1/campaigns/${f.id}`);
      if (view.status === 404) {
        if (f.acknowledged) {
          report.lost++;
          fail(`${where}: acknowledged but absent`);
        }
        continue;
      }
      if (view.status !== 200) {
        fail(`${where}: GET → ${view.status}`);
        continue;
      }
      f.acknowledged = true; // it exists: from now on it must stay whole
      report.forksVerified++;
      const version = view.body.version as number;
      const P = view.body.parent?.version as number;
      if (view.body.parent?.id !== f.parent || !Number.isInteger(P))
        fail(`${where}: parent ${JSON.stringify(view.body.parent)}`);
      const timeline = view.body.timeline as number;
      if (timeline < 1 + f.rewinds || timeline > 1 + f.rewinds + f.rewindsInFlight)
        fail(
          `${where}: timeline ${timeline} after ${f.rewinds} acknowledged rewinds (+${f.rewindsInFlight} in flight)`,
        );
      const caught = await caughtUp(f.id, version);
      if (caught.processedVersion !== version) {
        report.notCaughtUp++;
        fail(`${where}: processedVersion ${caught.processedVersion} did not catch up to ${version}`);
      }
      const game = await allPages(`/v1/campaigns/${f.id}/events`, (e) => e.version, 0);
      if (game.length !== version || game.some((e, i) => e.version !== i + 1)) {
        report.gaps++;
        fail(`${where}: game stream has ${game.length} events for version ${version}`);
      }
      if (game[P]?.type !== 'CampaignForked') fail(`${where}: event ${P + 1} is ${game[P]?.type}, not CampaignForked`);
      const memory = await allPages(`/v1/campaigns/${f.id}/events?stream=memory`, (e) => e.version, 0);
      const above = memory.filter((e) => (e.data?.triggerVersion ?? 0) > version);
      if (above.length) fail(`${where}: ${above.length} memory events triggered above game version ${version}`);
      if (!f.fromOriginal) continue; // a keepAs fork's parent was rewound since: its prefix is gone
      const parentGame = await allPages(`/v1/campaigns/${f.parent}/events`, (e) => e.version, 0);
      type Stored = { type?: string; data?: unknown; recordedAt?: string } | undefined;
      const same = (a: Stored, b: Stored) =>
        a?.type === b?.type && JSON.stringify(a?.data) === JSON.stringify(b?.data) && a?.recordedAt === b?.recordedAt;
      const firstDiff = game.slice(0, P).findIndex((e, i) => !same(e, parentGame[i]));
      if (firstDiff !== -1) fail(`${where}: game event ${firstDiff + 1} differs from its parent's`);
      const n = parentGame.slice(0, P).filter((e) => e.type === 'MessageRecorded').length;
      const msgs = await allPages(`/v1/campaigns/${f.id}/messages?includeRetracted=true`, (x) => x.index, -1);
      const parentMsgs = await allPages(`/v1/campaigns/${f.parent}/messages`, (x) => x.index, -1);
      const forkText = msgs.map((x) => x.content);
      const expectedText = parentMsgs.slice(0, n).map((x) => x.content);
      if (JSON.stringify(forkText) !== JSON.stringify(expectedText.slice(0, forkText.length)) || forkText.length > n) {
        report.lost++;
        fail(`${where}: ${forkText.length} messages, expected the parent's first ${n} (or fewer after a rewind)`);
      }
      const parentMemory = await allPages(`/v1/campaigns/${f.parent}/events?stream=memory`, (e) => e.version, 0);
      let k = 0;
      while (k < memory.length && k < parentMemory.length && same(memory[k], parentMemory[k])) k++;
      const floor = k > 0 ? (memory[k - 1].data?.triggerVersion ?? 0) : 0;
      const back = memory.slice(k).filter((e) => (e.data?.triggerVersion ?? 0) < floor);
      if (back.length) fail(`${where}: memory stream goes back below trigger ${floor} after the copied prefix`);
    }
    await checkWithheld(cycle);
  }

  /**
   * Nothing withheld once every worker has caught up (read from the file: reads never show withheld rows), but a
   * memory whose last revision failed: §10 keeps it withheld until a later trigger, which a fork may never get.
   */
  async function checkWithheld(cycle: number) {
    let rows: WithheldRow[] = [];
    try {
      const db = openSqlite(dbPath, { readonly: true });
      try {
        rows = db
          .prepare(
            `SELECT campaign_id AS "campaignId", id, changed_version AS "changedVersion" FROM memories ` +
              `WHERE status = 'withheld'`,
          )
          .all() as WithheldRow[];
      } finally {
        db.close();
      }
    } catch (err) {
      if (!/no such column: (status|changed_version)/.test((err as Error).message)) throw err;
    }
    let explained = 0;
    for (const id of new Set(rows.map((r) => r.campaignId))) {
      const mine = rows.filter((r) => r.campaignId === id);
      const memory = await allPages(`/v1/campaigns/${id}/events?stream=memory`, (e) => e.version, 0);
      const { explained: skipped, lost } = judgeWithheld(mine, memory);
      explained += skipped.length;
      for (const { row, reason } of skipped)
        log(`cycle ${cycle} ${id}: ${row.id} withheld, its revision failed: ${reason}`);
      if (lost.length)
        fail(
          `cycle ${cycle} ${id}: ${lost.length} memories still withheld after catch-up with no failed revision ` +
            `(${lost.map((r) => `${r.id}@${r.changedVersion}`).join(', ')})`,
        );
    }
    report.withheldBySkippedRevision = explained;
  }

  /** An ERROR line in the service log (a worker failure, a 5xx) is a finding even if the data is right. */
  function scanErrors(cycle: number, output: string) {
    for (const line of output
      .split('\n')
      .filter((l) => /\bERROR\b/.test(l))
      .slice(0, 5))
      fail(`cycle ${cycle}: service logged: ${line.slice(0, 300)}`);
  }

  async function allPages(path: string, cursor: (item: any) => number, start: number): Promise<any[]> {
    const out: any[] = [];
    let after = start;
    for (;;) {
      const r = await call('GET', `${path}${path.includes('?') ? '&' : '?'}after=${after}&limit=1000`);
      if (r.status !== 200) throw new Error(`GET ${path} → ${r.status}`);
      out.push(...r.body.items);
      if (r.body.items.length < 1000) return out;
      after = cursor(r.body.items[r.body.items.length - 1]);
    }
  }

  async function verify(cycle: number) {
    const totals = { events: 0, memories: 0, skipped: 0 };
    const byCampaign = new Map<string, Ack[]>();
    for (const a of acks)
      if (a.status < 300) byCampaign.set(a.op.campaign, [...(byCampaign.get(a.op.campaign) ?? []), a]);
    for (const m of models) {
      const where = `cycle ${cycle} ${m.id}`;
      const campaign = (await call('GET', `/v1/campaigns/${m.id}`)).body;
      const version = campaign.version as number;
      const caught = await caughtUp(m.id, version);
      if (caught.processedVersion !== version) {
        report.notCaughtUp++;
        fail(`${where}: processedVersion ${caught.processedVersion} did not catch up to version ${version}`);
      }

      // Game stream: gapless 1..version; every acknowledged request's events present exactly once.
      const events = await allPages(`/v1/campaigns/${m.id}/events`, (e) => e.version, 0);
      totals.events += events.length;
      const missing = version - events.length;
      const misordered = events.some((e, i) => e.version !== i + 1);
      if (missing !== 0 || misordered) {
        report.gaps++;
        fail(
          `${where}: game stream has ${events.length} events for version ${version}${misordered ? ', not 1..n' : ''}`,
        );
      }
      const byKey = new Map<string, any[]>();
      for (const e of events)
        if (e.metadata?.idempotencyKey)
          byKey.set(e.metadata.idempotencyKey, [...(byKey.get(e.metadata.idempotencyKey) ?? []), e]);
      const messages = await allPages(`/v1/campaigns/${m.id}/messages`, (x) => x.index, -1);
      const contentAt = new Map<number, string>(messages.map((x) => [x.index, x.content]));
      for (const ack of byCampaign.get(m.id) ?? []) {
        const mine = byKey.get(ack.op.key) ?? [];
        if (mine.length < ack.op.events) {
          report.lost++;
          fail(`${where}: acknowledged ${ack.op.kind} ${ack.op.key} has ${mine.length}/${ack.op.events} events`);
          continue;
        }
        if (mine.length > ack.op.events) {
          report.duplicates++;
          fail(`${where}: ${ack.op.kind} ${ack.op.key} appended ${mine.length} events, expected ${ack.op.events}`);
        }
        if (
          ack.op.events > 0 &&
          ack.body?.version !== undefined &&
          mine[mine.length - 1].version !== ack.body.version
        ) {
          report.lost++;
          fail(
            `${where}: ${ack.op.key} answered version ${ack.body.version} but its last event is ${mine[mine.length - 1].version}`,
          );
        }
        if (ack.op.kind === 'messages') {
          const wrong = (ack.body.indexes as number[]).filter((ix, j) => contentAt.get(ix) !== ack.op.contents![j]);
          if (wrong.length) {
            report.lost++;
            fail(`${where}: ${ack.op.key} messages at ${wrong.slice(0, 3).join(',')} are not the ones sent`);
          }
        }
      }
      const seen = new Set<string>();
      let dupContents = 0;
      for (const x of messages) {
        if (seen.has(x.content)) dupContents++;
        seen.add(x.content);
      }
      if (dupContents) {
        report.duplicates += dupContents;
        fail(`${where}: ${dupContents} duplicated message contents`);
      }
      if (messages.some((x, i) => x.index !== i)) fail(`${where}: message indexes are not dense`);

      // Memory stream: each (scope, subject, trigger) handled once, recorded or skipped.
      const memEvents = await allPages(`/v1/campaigns/${m.id}/events?stream=memory`, (e) => e.version, 0);
      const outcomes = new Map<string, number>();
      for (const e of memEvents) {
        if (e.type !== 'MemoryRecorded' && e.type !== 'MemorySkipped') continue;
        const k = `${e.data.scope}/${e.data.subjectId}@${e.data.triggerVersion}`;
        outcomes.set(k, (outcomes.get(k) ?? 0) + 1);
        if (e.type === 'MemoryRecorded') totals.memories++;
        else totals.skipped++;
      }
      for (const [k, n] of outcomes) {
        if (n > 1) {
          report.duplicates += n - 1;
          fail(`${where}: ${k} handled ${n} times`);
        }
      }
      const memories: any[] = [];
      for (let before: string | undefined; ;) {
        const r = await call(
          'GET',
          `/v1/campaigns/${m.id}/memories?limit=1000${before ? `&before=${encodeURIComponent(before)}` : ''}`,
        );
        memories.push(...r.body.items);
        if (r.body.items.length < 1000) break;
        before = r.body.items[r.body.items.length - 1].id;
      }
      const recorded = memEvents.filter((e) => e.type === 'MemoryRecorded').length;
      if (memories.length !== recorded) fail(`${where}: ${memories.length} memories listed, ${recorded} recorded`);
      const uniq = new Set(memories.map((x) => `${x.scope}/${x.subjectId}@${x.triggerVersion}`));
      if (uniq.size !== memories.length) {
        report.duplicates += memories.length - uniq.size;
        fail(`${where}: duplicate memories for one (scope, subject, trigger)`);
      }

      // Cursors: each equals the throughMessageIndex of its scope's newest memory (memories are newest first).
      const newest = new Map<string, number>();
      for (const x of memories)
        if (!newest.has(`${x.scope}/${x.subjectId}`)) newest.set(`${x.scope}/${x.subjectId}`, x.throughMessageIndex);
      const fresh = (await call('GET', `/v1/campaigns/${m.id}`)).body.cursors;
      const cursors = new Map<string, number>();
      if (fresh.world !== -1) cursors.set('world/world', fresh.world);
      for (const [k, v] of Object.entries(fresh.locations)) cursors.set(`location/${k}`, v as number);
      for (const [k, v] of Object.entries(fresh.npcs)) cursors.set(`npc/${k}`, v as number);
      for (const k of new Set([...newest.keys(), ...cursors.keys()])) {
        if (newest.get(k) !== cursors.get(k)) {
          report.cursorMismatches++;
          fail(`${where}: cursor ${k} = ${cursors.get(k)} but its newest memory ends at ${newest.get(k)}`);
        }
      }
    }
    report.events = totals.events;
    report.memories = totals.memories;
    report.skipped = totals.skipped;
    return totals;
  }

  report.acknowledged = acks.filter((a) => a.status < 300).length;
  report.messages = acks.filter((a) => a.status < 300 && a.op.kind === 'messages').reduce((n, a) => n + a.op.events, 0);
  svc.kill('SIGTERM');
  const exit = await svc.exited;
  if (exit.code !== 0) fail(`final SIGTERM: exit ${JSON.stringify(exit)}`);
  scanErrors(report.cycles, svc.output());
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
  report.durationMs = Date.now() - started;
  return report;
}

/** The figures the issue asks for, one line each. */
export function formatChaosReport(r: ChaosReport): string {
  return [
    `cycles ${r.cycles}, requests acknowledged ${r.acknowledged}, lost ${r.lost}, duplicates ${r.duplicates}`,
    `gaps ${r.gaps}, cursor mismatches ${r.cursorMismatches}, not caught up ${r.notCaughtUp}`,
    `in flight at kill (re-sent with their Idempotency-Key) ${r.inFlightAtKill}, answered but re-sent ${r.repliesDropped}; kills ${Object.entries(
      r.kills,
    )
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
    `events ${r.events}, messages ${r.messages}, memories ${r.memories}, skipped ${r.skipped}, model calls ${r.summaryCalls}`,
    `forks ${r.forks} (checked whole ${r.forksVerified} times), rewinds ${r.rewinds}, retractions ${r.retractions}, ` +
      `withheld by a failed revision ${r.withheldBySkippedRevision}`,
    `seed ${r.seed}, ${(r.durationMs / 1000).toFixed(1)} s${r.failures.length ? `, ${r.failures.length} failures (first: ${r.failures[0]})` : ''}`,
  ].join('\n');
}

export const chaosFailed = (r: ChaosReport) =>
  r.lost > 0 || r.duplicates > 0 || r.gaps > 0 || r.cursorMismatches > 0 || r.notCaughtUp > 0 || r.failures.length > 0;

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} needs a positive integer`);
  return n;
}

if (require.main === module) {
  const options: ChaosOptions = {
    cycles: flag('cycles', 50),
    campaigns: flag('campaigns', 20),
    clients: flag('clients', 6),
    seed: process.argv.includes('--seed') ? flag('seed', 1) : undefined,
    skipBuild: true,
    timelines: !process.argv.includes('--no-timelines'),
    log: (line) => process.stdout.write(`${line}\n`),
  };
  runChaos(options).then(
    (r) => {
      process.stdout.write(`\n${formatChaosReport(r)}\n`);
      process.exit(chaosFailed(r) ? 1 : 0);
    },
    (err: unknown) => {
      process.stderr.write(`chaos harness failed: ${(err as Error)?.stack ?? err}\n`);
      process.exit(2);
    },
  );
}
