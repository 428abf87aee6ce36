import { FixedClock } from '@app/common';
import { bigMap, ship, status } from '../test/support/game-fixtures';
import { startTestApp, tempDb } from '../test/support/test-app';

/** What one scripted agent session measured (DESIGN §5–6, issue 8). */
export interface StateBenchResult {
  turns: number;
  /** Bytes of get_status + get_ship + get_map the agent would carry and resend each turn without the cache. */
  baselineBytesTotal: number;
  baselineBytesPerTurn: number;
  /** Bytes of the Current Game State section served instead. */
  stateSectionBytesTotal: number;
  stateSectionBytesPerTurn: number;
  stateSectionBytesMax: number;
  stateSectionTokensMax: number;
  reductionPercent: number;
  mapBytes: number;
  /** Fact assertions/resolutions plus expiries that changed the digest. */
  factChanges: number;
  digestInjections: number;
  digestInjectionsTarget: number;
  targets: { reductionPercent: number; bytesPerTurn: number };
  met: boolean;
}

const TURNS = 100;
const TICK_SECONDS = 10;

/**
 * Scripts a 100-turn tool-using agent against the real app (HTTP, SQLite file): get_status and
 * get_ship every turn, a 190 KB get_map every 25 turns, an action per turn, a few fact changes,
 * and one context read per turn that passes back the digest version it holds.
 */
// The session takes a few seconds, so `quick` runs the same 100 turns (the numbers are per 100 turns).
export async function runStateBench(_opts: { quick: boolean }): Promise<StateBenchResult> {
  const db = tempDb();
  const clock = new FixedClock(new Date('2026-01-01T00:00:00.000Z'));
  const t = await startTestApp({ clock, dbPath: db.path, env: { TICK_SECONDS: String(TICK_SECONDS) } });
  try {
    const cid = 'bench-state';
    const base = `/v1/campaigns/${cid}`;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await t.http(method, path, body);
      if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
      return res.body;
    };
    await call('POST', '/v1/campaigns', { id: cid, name: 'State benchmark' });
    await call('POST', `${base}/accounts/pilot-1/login`, { agentId: 'bot' });

    // Scripted world changes; the buff's TTL runs out mid-session (an expiry changes the digest too).
    const factScript: Record<number, () => Promise<unknown>> = {
      10: () =>
        call('PUT', `${base}/facts/conflict/pirates`, { value: 'Pirates raid the Orion trade lanes', priority: 2 }),
      20: () =>
        call('PUT', `${base}/facts/buff/tailwind`, {
          value: 'Solar tailwind: +20% speed',
          ttlSeconds: 30 * TICK_SECONDS,
        }),
      35: () => call('PUT', `${base}/facts/relationship/guild`, { value: 'The Miners Guild trusts you' }),
      60: () => call('POST', `${base}/facts/conflict/pirates/resolve`),
      80: () => call('PUT', `${base}/facts/debt/bank`, { value: 'You owe the Bank of Sol 5,000 credits' }),
    };

    const map = bigMap(487);
    const mapBytes = Buffer.byteLength(JSON.stringify(map));
    let latest = { status: 0, ship: 0, map: 0 };
    let heldDigest: string | undefined;
    let baselineBytesTotal = 0;
    let stateBytesTotal = 0;
    let stateBytesMax = 0;
    let stateTokensMax = 0;
    let injections = 0;
    let lastDigestText: string | null = null;
    let digestChanges = 0;

    for (let turn = 1; turn <= TURNS; turn++) {
      const tick = 1000 + turn;
      clock.advance(TICK_SECONDS * 1000);
      const st = status(turn);
      const sh = ship(turn);
      await call('PUT', `${base}/accounts/pilot-1/snapshots/get_status`, { content: st, tick });
      await call('PUT', `${base}/accounts/pilot-1/snapshots/get_ship`, { content: sh, tick });
      latest = {
        ...latest,
        status: Buffer.byteLength(JSON.stringify(st)),
        ship: Buffer.byteLength(JSON.stringify(sh)),
      };
      if (turn % 25 === 1) {
        await call('PUT', `${base}/accounts/pilot-1/snapshots/get_map`, { content: map, tick });
        latest.map = mapBytes;
      }
      await factScript[turn]?.();
      const digest = (await call('GET', `${base}/digest`)) as { text: string };
      if (digest.text !== lastDigestText) {
        if (lastDigestText !== null) digestChanges++;
        lastDigestText = digest.text;
      }

      const q = `agent=agent&include=state,digest&agentId=bot&tick=${tick}${heldDigest ? `&digestVersion=${heldDigest}` : ''}`;
      const ctx = (await call('GET', `${base}/context?${q}`)) as {
        sections: { key: string; title: string; tokens: number; entries: { text: string }[]; inline?: boolean }[];
        digest: { version: string; injected: boolean };
      };
      const state = ctx.sections.find((s) => s.key === 'state')!;
      const stateText = [`## ${state.title}`, ...state.entries.map((e) => e.text)].join('\n');
      const bytes = Buffer.byteLength(stateText);
      stateBytesTotal += bytes;
      stateBytesMax = Math.max(stateBytesMax, bytes);
      stateTokensMax = Math.max(stateTokensMax, state.tokens);
      baselineBytesTotal += latest.status + latest.ship + latest.map;
      if (ctx.digest.injected) injections++;
      heldDigest = ctx.digest.version;

      await call('POST', `${base}/accounts/pilot-1/actions`, { action: turn % 5 === 0 ? 'travel' : 'mine', tick });
    }

    const reductionPercent = Math.round((1 - stateBytesTotal / baselineBytesTotal) * 10000) / 100;
    const result: StateBenchResult = {
      turns: TURNS,
      baselineBytesTotal,
      baselineBytesPerTurn: Math.round(baselineBytesTotal / TURNS),
      stateSectionBytesTotal: stateBytesTotal,
      stateSectionBytesPerTurn: Math.round(stateBytesTotal / TURNS),
      stateSectionBytesMax: stateBytesMax,
      stateSectionTokensMax: stateTokensMax,
      reductionPercent,
      mapBytes,
      factChanges: digestChanges,
      digestInjections: injections,
      digestInjectionsTarget: digestChanges + 1,
      targets: { reductionPercent: 95, bytesPerTurn: 2048 },
      met: reductionPercent >= 95 && stateBytesMax < 2048 && injections === digestChanges + 1,
    };
    return result;
  } finally {
    await t.close();
    db.cleanup();
  }
}

if (require.main === module) {
  runStateBench({ quick: process.argv.includes('--quick') })
    .then((r) => {
      process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
      process.exitCode = r.met ? 0 : 1;
    })
    .catch((err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = 1;
    });
}
