import { CampaignReader, CampaignStateCache, StateKind } from '@app/campaign';
import { Database } from '@app/database';
import { TypeOrmEventStore } from '@app/event-store';
import { join } from 'node:path';
import { BenchOptions, Figures } from './support/bench-suite';
import { HttpClient, timedGet } from './support/http-client';
import { HistorySeeder, SeedResult } from './support/history-seeder';
import { tempDir } from './support/paths';
import { openServiceDb } from './support/sqlite';
import { localServiceEnv, spawnServer } from './support/service-process';
import { mean, percentile, ratio, round, sizeLabel as label } from './support/stats';

const TARGET = 1.2;
/** Writes must not grow with history either (issue 20): POST /messages p50 at the largest size ÷ at 1k. */
const WRITE_TARGET = 1.2;
/** The state rows the narrative context needs (docs/history/timelines-plan.md §2.1: head, location, npc). */
const NARRATIVE_KINDS: StateKind[] = ['head', 'location', 'npc'];

/** §2 Context read vs history size: GET /context p50/p99 on campaigns of 1k, 100k and 1M events in one database. */
export async function runContextLatencyBench(options: BenchOptions): Promise<Figures> {
  const sizes = options.quick ? [1_000, 100_000] : [1_000, 100_000, 1_000_000];
  const perCampaign = options.quick ? 200 : 800;
  const warmup = options.quick ? 30 : 50;
  const tmp = tempDir('context');
  const dbPath = join(tmp.path, 'lorekeeper.db');
  try {
    const seeded = await HistorySeeder.seedAll(dbPath, sizes, (events) => `history-${events}`);
    const stateAt = await measureStateAt(dbPath, seeded[seeded.length - 1], options.quick ? 100 : 400);
    // A 1 GB file on a shared machine: the boot may take longer than the default 30 s.
    const service = await spawnServer({ dir: tmp.path, env: localServiceEnv(dbPath), timeoutMs: 180_000 });
    try {
      const url = (s: SeedResult) => `${service.url}/v1/campaigns/${s.campaignId}/context`;
      const served = new Map<string, { sections: number; entries: number }>();
      for (const s of seeded) {
        const res = await fetch(url(s));
        const body = (await res.json()) as { sections: { entries: unknown[] }[] };
        if (res.status !== 200) throw new Error(`GET context ${s.campaignId} → ${res.status}`);
        served.set(s.campaignId, {
          sections: body.sections.filter((x) => x.entries.length).length,
          entries: body.sections.reduce((n, x) => n + x.entries.length, 0),
        });
      }
      const samples = new Map<string, number[]>(seeded.map((s) => [s.campaignId, []]));
      // Round-robin over the campaigns so machine noise lands on every size alike; the first rounds warm up.
      for (let i = 0; i < perCampaign + warmup; i++) {
        for (const s of seeded) {
          const r = await timedGet(url(s)).catch((err: Error) => {
            throw new Error(
              `GET context ${s.campaignId} failed (${err.message}; server ${service.exitStatus() ?? 'still running'}; log ${service.logPath})`,
            );
          });
          if (r.status !== 200) throw new Error(`GET context ${s.campaignId} → ${r.status}`);
          if (i >= warmup) samples.get(s.campaignId)!.push(r.ms);
        }
      }
      const rows = seeded.map((s) => {
        const ms = samples.get(s.campaignId)!;
        return {
          campaign: s.campaignId,
          events: s.events,
          messages: s.messages,
          memories: s.memories,
          'state doc KB': round(s.stateBytes / 1024, 1),
          'sections served': served.get(s.campaignId)!.sections,
          'entries served': served.get(s.campaignId)!.entries,
          'p50 ms': round(percentile(ms, 50)),
          'p99 ms': round(percentile(ms, 99)),
          'mean ms': round(mean(ms)),
        };
      });
      // Writes, one campaign at a time (its worker settled before the next), so campaigns do not slow each other.
      const writes = options.quick ? 40 : 120;
      const http = new HttpClient(service.url);
      const writeRows = [];
      for (const s of seeded) {
        const ms: number[] = [];
        for (let i = 0; i < writes + 20; i++) {
          const t0 = performance.now();
          await http.post(`/v1/campaigns/${s.campaignId}/messages`, {
            messages: [
              { role: 'player', speaker: 'Aria', content: `Aria asks Brom about the old mine, for the ${i}th time.` },
            ],
          });
          if (i >= 20) ms.push(performance.now() - t0);
        }
        await http.settled(s.campaignId);
        writeRows.push({
          campaign: s.campaignId,
          events: s.events,
          'state doc KB': round(s.stateBytes / 1024, 1),
          'state rows': s.stateRows,
          'POST p50 ms': round(percentile(ms, 50)),
          'POST p99 ms': round(percentile(ms, 99)),
        });
      }
      const first = rows[0];
      const last = rows[rows.length - 1];
      return {
        [`p99(${label(last.events)}) / p99(${label(first.events)}) (target ≤ ${TARGET})`]: ratio(
          last['p99 ms'],
          first['p99 ms'],
        ),
        [`p50(${label(last.events)}) / p50(${label(first.events)})`]: ratio(last['p50 ms'], first['p50 ms']),
        [`write: POST /messages p50(${label(last.events)}) / p50(${label(first.events)}) (target ≤ ${WRITE_TARGET})`]:
          ratio(writeRows[writeRows.length - 1]['POST p50 ms'], writeRows[0]['POST p50 ms']),
        campaigns: rows,
        'writes (1 message per POST, sequential)': writeRows,
        [`stateAt(version / 2) of ${label(last.events)}, in process`]: stateAt,
        seeding: seeded.map((s) => ({
          campaign: s.campaignId,
          events: s.events,
          seconds: round(s.seconds, 1),
          'events/s': round(s.events / s.seconds),
        })),
        notes: [
          `${perCampaign} sequential GET /v1/campaigns/:id/context (narrative, limit 3, JSON) per campaign, round-robin, one client, keep-alive`,
          'all campaigns share one SQLite file; seeded through the service migrations and projection mappers (bench/support/history-seeder.ts)',
          'state doc KB = what the state would be as one JSON document (every write serialized it before the state rows); now stored as versioned campaign_state_rows: a write adds the rows its events changed (a message: none), reads take the state from the cache by (timeline, version) (only small columns are read)',
          'stateAt: CampaignReader.stateAt(id, version / 2, kinds) straight on the seeded file, before the server starts; "uncached" = a different version each call (the as-of LRU misses), "cached" = the same version again',
        ],
      };
    } finally {
      await service.stop();
    }
  } finally {
    tmp.cleanup();
  }
}

/** `CampaignReader.stateAt` at the middle of a seeded campaign: narrative kinds and all kinds, uncached and cached. */
async function measureStateAt(dbPath: string, s: SeedResult, runs: number) {
  const ds = await openServiceDb(dbPath);
  try {
    const db = new Database(ds);
    const reader = new CampaignReader(db, new TypeOrmEventStore(db), new CampaignStateCache());
    const mid = Math.floor(s.events / 2);
    const time = async (version: (i: number) => number, kinds?: StateKind[]) => {
      const ms: number[] = [];
      let rows = 0;
      for (let i = 0; i < runs + 20; i++) {
        const t0 = performance.now();
        const state = await reader.stateAt(s.campaignId, version(i), kinds);
        if (i >= 20) ms.push(performance.now() - t0);
        rows =
          Object.keys(state!.npcs).length + Object.keys(state!.locations).length + Object.keys(state!.quests).length;
      }
      return {
        'p50 ms': round(percentile(ms, 50), 3),
        'p99 ms': round(percentile(ms, 99), 3),
        'npcs+locations+quests': rows,
      };
    };
    return {
      'narrative kinds, uncached': await time((i) => mid - i, NARRATIVE_KINDS),
      'narrative kinds, cached': await time(() => mid, NARRATIVE_KINDS),
      'all kinds, uncached': await time((i) => mid - 1000 - i),
    };
  } finally {
    await ds.destroy();
  }
}
