import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultMockHandler, MockAnthropic, startMockAnthropic } from '../test/support/mock-anthropic';
import { mkdirSync } from 'node:fs';
import { BenchOptions, Figures } from './support/bench-suite';
import { monotonicUs, summarizeProfileDir } from './support/cpu-profile';
import { HttpClient } from './support/http-client';
import { HistorySeeder } from './support/history-seeder';
import { tempDir } from './support/paths';
import { mockedAnthropicEnv, spawnServer } from './support/service-process';
import { openSqlite } from './support/sqlite';
import { mean, ratio, round } from './support/stats';

const MODEL_MS = 200;
const TARGET = 0.8;
const CAMPAIGNS = 100;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The mock answers every call after MODEL_MS and records arrival times and the peak of calls in flight. */
function instrument(mock: MockAnthropic) {
  const stats = { arrivals: [] as number[], firstUs: 0, inFlight: 0, peak: 0 };
  mock.setHandler(async (body) => {
    if (stats.arrivals.length === 0) stats.firstUs = monotonicUs();
    stats.arrivals.push(performance.now());
    stats.inFlight += 1;
    stats.peak = Math.max(stats.peak, stats.inFlight);
    await sleep(MODEL_MS);
    stats.inFlight -= 1;
    return defaultMockHandler(body, 0);
  });
  return stats;
}

/** §3 Memory worker throughput (memories/s vs MEMORY_CONCURRENCY / 0.2 s) and lag under ingest load. */
export async function runWorkerThroughputBench(options: BenchOptions): Promise<Figures> {
  const tmp = tempDir('worker');
  const mock = await startMockAnthropic();
  try {
    const template = join(tmp.path, 'template.db');
    const scenes = options.quick ? 2 : 4;
    const seeder = await HistorySeeder.open(template);
    let triggers = 0;
    try {
      for (let i = 0; i < CAMPAIGNS; i++) {
        triggers += seeder.seed({
          campaignId: `w-${i}`,
          events: Infinity,
          scenes,
          locations: 4,
          npcs: 4,
          messagesPerScene: 10,
          worldEveryScenes: 2,
          worker: 'pending',
          seed: i + 1,
        }).triggers;
      }
    } finally {
      await seeder.close();
    }
    const rows: Record<string, unknown>[] = [];
    let profile: Figures | undefined;
    for (const concurrency of options.quick ? [16] : [4, 16]) {
      const profDir = options.profile && concurrency === 16 ? join(tmp.path, 'profile') : undefined;
      if (profDir) mkdirSync(profDir, { recursive: true });
      const dbPath = join(tmp.path, `c${concurrency}.db`);
      copyFileSync(template, dbPath);
      mock.reset();
      const stats = instrument(mock);
      // The worker catches up from the checkpoints at boot: pure worker time, no ingest in the way.
      const service = await spawnServer({
        dir: tmp.path,
        cpuProfDir: profDir,
        env: mockedAnthropicEnv(dbPath, mock.baseUrl, { MEMORY_CONCURRENCY: String(concurrency) }),
      });
      const db = openSqlite(dbPath, { readonly: true });
      let doneAt: number;
      try {
        const behind = db.prepare(
          'SELECT COUNT(*) AS n FROM campaigns c LEFT JOIN memory_checkpoints k ON k.campaign_id = c.id WHERE coalesce(k.processed_version, 0) < c.version',
        );
        const deadline = Date.now() + 300_000;
        while ((behind.get() as { n: number }).n > 0) {
          if (Date.now() > deadline)
            throw new Error(`worker not done after 300 s at MEMORY_CONCURRENCY=${concurrency}; log ${service.logPath}`);
          await sleep(10);
        }
        doneAt = performance.now();
        const memories = (db.prepare('SELECT COUNT(*) AS n FROM memories').get() as { n: number }).n;
        const skipped = (
          db.prepare("SELECT COUNT(*) AS n FROM events WHERE type = 'MemorySkipped'").get() as { n: number }
        ).n;
        const seconds = (doneAt - stats.arrivals[0]) / 1000;
        const ideal = concurrency / (MODEL_MS / 1000);
        rows.push({
          MEMORY_CONCURRENCY: concurrency,
          campaigns: CAMPAIGNS,
          triggers,
          'model calls': stats.arrivals.length,
          memories,
          skipped,
          seconds: round(seconds),
          'memories/s': round(memories / seconds),
          'ideal/s': ideal,
          [`ratio (target ≥ ${TARGET})`]: ratio(memories / seconds, ideal),
          'peak calls in flight': stats.peak,
        });
      } finally {
        db.close();
        await service.stop();
      }
      if (profDir) {
        const p = summarizeProfileDir(profDir, 12, {
          fromUs: stats.firstUs,
          toUs: stats.firstUs + (doneAt - stats.arrivals[0]) * 1000,
        });
        if (p)
          profile = {
            'sampled ms (not idle)': p.totalMs,
            'self time by area': p.selfByArea,
            'top functions (self)': p.topFunctions,
          };
      }
    }
    const lag = await lagUnderLoad(tmp.path, mock, options);
    return {
      throughput: rows,
      ...lag,
      ...(profile ? { 'profile at MEMORY_CONCURRENCY=16': profile } : {}),
      notes: [
        `${CAMPAIGNS} campaigns seeded unprocessed (${scenes} scenes each: location, NPC and world triggers); the service catches up at boot; time = first model call → every checkpoint at its version`,
        `real AnthropicSummarizer (SDK over HTTP) against test/support/mock-anthropic answering after ${MODEL_MS} ms; per campaign the scopes of a trigger are summarized one after another, so the last wave of campaigns leaves slots idle`,
        'lag: 8 campaigns, each 5 messages/s paced (one message per POST) with a change-location every 10 messages, MEMORY_CONCURRENCY 4, model 200 ms; lag = version − processedVersion read from GET /v1/campaigns/:id every 0.5 s',
      ],
    };
  } finally {
    await mock.close();
    tmp.cleanup();
  }
}

/** Paced ingest into several campaigns while the worker summarizes; samples version − processedVersion. */
async function lagUnderLoad(dir: string, mock: MockAnthropic, options: BenchOptions): Promise<Figures> {
  const campaigns = 8;
  const perCampaignRate = 5; // messages/s: a busy table, several players and NPCs talking
  const sceneLength = 10;
  const loadSec = options.quick ? 3 : 12;
  const concurrency = 4;
  mock.reset();
  const stats = instrument(mock);
  const service = await spawnServer({
    dir,
    env: mockedAnthropicEnv(join(dir, 'lag.db'), mock.baseUrl, { MEMORY_CONCURRENCY: String(concurrency) }),
  });
  const http = new HttpClient(service.url);
  try {
    const ids = Array.from({ length: campaigns }, (_, i) => `lag-${i}`);
    for (const id of ids) {
      await http.post('/v1/campaigns', { id, name: id });
      for (const [loc, name] of [
        ['hall', 'Great Hall'],
        ['yard', 'Courtyard'],
        ['gate', 'North Gate'],
      ])
        await http.put(`/v1/campaigns/${id}/locations/${loc}`, { name });
      await http.put(`/v1/campaigns/${id}/npcs/brom`, { name: 'Brom', locationId: 'hall' });
      await http.put(`/v1/campaigns/${id}/npcs/mira`, { name: 'Mira', locationId: 'yard' });
      await http.post(`/v1/campaigns/${id}/commands/change-location`, { toLocationId: 'hall' });
    }
    const t0 = performance.now();
    const samples: { t: number; total: number; max: number; calls: number }[] = [];
    const sample = async () => {
      const lags = await Promise.all(
        ids.map(async (id) => {
          const c = await http.get(`/v1/campaigns/${id}`);
          return c.version - c.processedVersion;
        }),
      );
      samples.push({
        t: (performance.now() - t0) / 1000,
        total: lags.reduce((a, b) => a + b, 0),
        max: Math.max(...lags),
        calls: stats.arrivals.length,
      });
      return lags.reduce((a, b) => a + b, 0);
    };
    let writes = 0;
    const places = ['hall', 'yard', 'gate'];
    const writer = async (id: string, k: number) => {
      for (let n = 0; ; n++) {
        const due = t0 + (n * 1000) / perCampaignRate + k * 5;
        if (due > t0 + loadSec * 1000) return;
        await sleep(Math.max(0, due - performance.now()));
        if (n > 0 && n % sceneLength === 0)
          await http.post(`/v1/campaigns/${id}/commands/change-location`, {
            toLocationId: places[(n / sceneLength) % 3],
          });
        const npc = n % 2 ? 'Brom' : 'Mira';
        await http.post(`/v1/campaigns/${id}/messages`, {
          messages: [
            {
              role: 'player',
              speaker: 'Aria',
              content: `Aria asks ${npc} about the ${n}th bell and pays ${n % 40} silver for the answer.`,
            },
          ],
        });
        writes += 1;
      }
    };
    let writing = true;
    const sampler = (async () => {
      while (writing) {
        await sample();
        await sleep(500);
      }
    })();
    await Promise.all(ids.map(writer));
    writing = false;
    await sampler;
    const loadEnded = performance.now();
    const loadSeconds = (loadEnded - t0) / 1000;
    let drained = NaN;
    for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
      if ((await sample()) === 0) {
        drained = (performance.now() - loadEnded) / 1000;
        break;
      }
      await sleep(250);
    }
    const during = samples.filter((s) => s.t <= loadSeconds);
    const step = Math.max(1, Math.ceil(samples.length / 12));
    return {
      'lag: ingest msg/s (paced, all campaigns)': round(writes / loadSeconds),
      'lag: model calls/s demanded during load': round(
        stats.arrivals.filter((t) => t <= loadEnded).length / loadSeconds,
      ),
      'lag: summarizer capacity calls/s': concurrency / (MODEL_MS / 1000),
      'lag: mean total lag during load (events)': round(mean(during.map((s) => s.total))),
      'lag: peak campaign lag (events)': Math.max(...samples.map((s) => s.max)),
      'lag: peak campaign lag (≈ s of play behind)': round(Math.max(...samples.map((s) => s.max)) / perCampaignRate),
      'lag: drain after load stops (s)': round(drained),
      'lag timeline': samples
        .filter((_, i) => i % step === 0 || i === samples.length - 1)
        .map((s) => ({
          't s': round(s.t, 1),
          'total lag': s.total,
          'max campaign lag': s.max,
          'model calls so far': s.calls,
        })),
    };
  } finally {
    await service.stop();
  }
}
