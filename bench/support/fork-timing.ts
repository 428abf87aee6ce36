import { join } from 'node:path';
import { HistorySeeder } from './history-seeder';
import { tempDir } from './paths';
import { localServiceEnv, spawnServer } from './service-process';

export interface ForkTiming {
  events: number;
  messages: number;
  memories: number;
  /** Wall time of POST …/fork at the head (one transaction: both streams, projections, FTS5 rows). */
  seconds: number;
  secondsPer100k: number;
}

/**
 * DESIGN §10 fork cost against history size (lane 4's measurement; lane 6's timelines bench may call it): one
 * SQLite file seeded with a campaign per size (worker caught up), the FTS5 rows the seeder leaves out filled
 * by SQL (a fork copies them and FTS5 re-tokenizes each), then the built service forks each at its head.
 */
export async function measureForks(sizes: number[]): Promise<ForkTiming[]> {
  const tmp = tempDir('fork');
  const dbPath = join(tmp.path, 'lorekeeper.db');
  try {
    const seeded = await HistorySeeder.seedAll(
      dbPath,
      sizes,
      (events) => `fork-${events}`,
      (seeder, s) => fillFts(seeder, s.campaignId),
    );
    const service = await spawnServer({ dir: tmp.path, env: localServiceEnv(dbPath) });
    try {
      const out: ForkTiming[] = [];
      for (const s of seeded) {
        const t0 = performance.now();
        const res = await fetch(`${service.url}/v1/campaigns/${s.campaignId}/fork`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ id: `${s.campaignId}-fork` }),
        });
        const seconds = (performance.now() - t0) / 1000;
        if (res.status !== 201) throw new Error(`fork ${s.campaignId} → ${res.status} ${await res.text()}`);
        out.push({
          events: s.events,
          messages: s.messages,
          memories: s.memories,
          seconds: round(seconds),
          secondsPer100k: round((seconds * 100_000) / s.events),
        });
      }
      return out;
    } finally {
      await service.stop();
    }
  } finally {
    tmp.cleanup();
  }
}

/** The search rows the service would have written for the seeded messages and memories (FTS5 rowid layout). */
function fillFts(seeder: HistorySeeder, campaignId: string): void {
  const db = seeder.db;
  db.prepare('INSERT INTO search_campaigns (campaign_id) VALUES (?)').run(campaignId);
  const { num } = db.prepare('SELECT num FROM search_campaigns WHERE campaign_id = ?').get(campaignId);
  db.prepare(
    'INSERT INTO search_messages (rowid, content, role, location_id, at, round) SELECT (? << 32) + idx, content, ' +
      'role, location_id, at, round FROM messages WHERE campaign_id = ?',
  ).run(num, campaignId);
  db.prepare(
    'INSERT INTO search_memories (rowid, summary, memory_id, location_id, at, round) SELECT (? << 32) + ' +
      'memory_version, summary, id, location_id, created_at, NULL FROM memories WHERE campaign_id = ?',
  ).run(num, campaignId);
}

const round = (x: number) => Math.round(x * 1000) / 1000;

if (require.main === module) {
  const sizes = process.argv.slice(2).map(Number);
  measureForks(sizes.length ? sizes : [10_000, 100_000])
    .then((rows) => console.table(rows))
    .catch((err) => {
      console.error(err);
      process.exitCode = 1;
    });
}
