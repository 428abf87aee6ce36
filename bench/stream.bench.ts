import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LorekeeperClient } from '@app/client';
import { BenchOptions, Figures } from './support/bench-suite';
import { timedGet } from './support/http-client';
import { HistorySeeder } from './support/history-seeder';
import { tempDir } from './support/paths';
import { localServiceEnv, spawnServer } from './support/service-process';
import { percentile, ratio, round } from './support/stats';

/** Target: the inspector's reads stay flat in the campaign's length (p99 at 100k / p99 at 1k ≤ 1.5). */
export const STREAM_TARGET = 1.5;

/**
 * §11 on long campaigns: what the inspector does when it opens one (the campaign list, the newest
 * timeline page, a page from the middle, the stream from the newest event) and how fast a stream
 * replays a whole campaign — on 1k and 100k-event campaigns in one SQLite file.
 */
export async function runStreamBench(options: BenchOptions): Promise<Figures> {
  const sizes = [1_000, 100_000];
  const reads = options.quick ? 100 : 400;
  const tmp = tempDir('stream');
  const dbPath = join(tmp.path, 'lorekeeper.db');
  try {
    const seeded = await HistorySeeder.seedAll(dbPath, sizes, (events) => `stream-${events}`);
    const service = await spawnServer({ dir: tmp.path, env: localServiceEnv(dbPath) });
    try {
      const client = new LorekeeperClient({ baseUrl: service.url });
      const rows = [];
      for (const s of seeded) {
        const c = `/v1/campaigns/${s.campaignId}`;
        const middle = `1:game:${Math.floor(s.events / 2)}`;
        const timed = async (path: string) => {
          const ms: number[] = [];
          for (let i = 0; i < reads + 20; i++) {
            const r = await timedGet(`${service.url}${path}`);
            if (r.status !== 200) throw new Error(`GET ${path} → ${r.status}`);
            if (i >= 20) ms.push(r.ms);
          }
          return ms;
        };
        const newest = await timed(`${c}/timeline?limit=100`);
        const mid = await timed(`${c}/timeline?limit=100&before=${middle}`);
        // Open the stream after the newest event, as the inspector does, and time the first byte of a new write.
        const firstLive: number[] = [];
        for (let i = 0; i < (options.quick ? 10 : 30); i++) {
          const abort = new AbortController();
          const heads = (await client.request('GET', `${c}/timeline?limit=1`)).items[0].id as string;
          const it = client.stream(s.campaignId, { after: heads, signal: abort.signal });
          const next = it.next();
          const t0 = performance.now();
          await client.recordMessages(s.campaignId, [{ role: 'player', speaker: 'Aria', content: `Bench line ${i}.` }]);
          await next;
          firstLive.push(performance.now() - t0);
          abort.abort();
          await it.return(undefined).catch(() => undefined);
        }
        // Replay: every event of the campaign through one stream.
        const t0 = performance.now();
        let n = 0;
        const abort = new AbortController();
        const total = (await client.getCampaign(s.campaignId)).version as number;
        for await (const e of client.stream(s.campaignId, { signal: abort.signal })) {
          if (e.id) n++;
          if (e.data?.stream === 'game' && e.data.version >= total) break;
        }
        const replaySeconds = (performance.now() - t0) / 1000;
        rows.push({
          campaign: s.campaignId,
          events: s.events,
          memories: s.memories,
          'newest page p50 ms': round(percentile(newest, 50)),
          'newest page p99 ms': round(percentile(newest, 99)),
          'middle page p50 ms': round(percentile(mid, 50)),
          'middle page p99 ms': round(percentile(mid, 99)),
          'write → live event p50 ms': round(percentile(firstLive, 50)),
          'replay events/s': round(n / replaySeconds),
        });
      }
      const [small, large] = rows;
      return {
        [`newest timeline page p99(100k) / p99(1k) (target ≤ ${STREAM_TARGET})`]: ratio(
          large['newest page p99 ms'],
          small['newest page p99 ms'],
        ),
        [`middle timeline page p99(100k) / p99(1k) (target ≤ ${STREAM_TARGET})`]: ratio(
          large['middle page p99 ms'],
          small['middle page p99 ms'],
        ),
        campaigns: rows,
        notes: [
          `${reads} sequential GET …/timeline?limit=100 per campaign and page, one client, keep-alive, after 20 warm-up reads`,
          'write → live event: POST /messages until the stream (opened after the newest event) yields it, in-process wake-up',
          'replay: one stream from the start until the last game event, through the typed client (JSON parse included)',
        ],
      };
    } finally {
      await service.stop();
    }
  } finally {
    tmp.cleanup();
  }
}
