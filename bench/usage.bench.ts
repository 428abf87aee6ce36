import { costOf, UsageReport } from '@app/summarizer';
import { ModelPrice } from '@app/common';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { defaultMockHandler, startMockAnthropic } from '../test/support/mock-anthropic';
import { replay } from './locomo.bench';
import { loadLocomo, locomoPath, sessionsOf } from './locomo/locomo-data';
import { BenchOptions, Figures } from './support/bench-suite';
import { HttpClient } from './support/http-client';
import { repoRoot, tempDir } from './support/paths';
import { mockedAnthropicEnv, spawnServer } from './support/service-process';
import { round } from './support/stats';

/** Two example price tables (USD per million tokens), applied to the same measured tokens. */
const PRICE_TABLES: Record<string, ModelPrice> = {
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0.15 },
};

// Injected faults, so the share spent on failed attempts is measured rather than zero: every 10th answer is empty
// (billed, as a real provider bills it) and every 25th a 500 (not billed).
const EMPTY_EVERY = 10;
const ERROR_EVERY = 25;

async function messageCount(http: HttpClient, cid: string): Promise<number> {
  let n = 0;
  let after: number | undefined;
  for (;;) {
    const page = await http.get(
      `/v1/campaigns/${cid}/messages?limit=500${after === undefined ? '' : `&after=${after}`}`,
    );
    n += page.items.length;
    if (page.items.length < 500) return n;
    after = page.items[page.items.length - 1].index;
  }
}

/** Rows per scope of one corpus: calls and tokens per 100 messages, cost at each price table, the failed share. */
function rowsOf(corpus: string, messages: number, usage: UsageReport) {
  const per100 = (x: number) => round((x * 100) / Math.max(1, messages), 1);
  return [...usage.byScope, { scope: 'all', ...usage.totals }].map((s) => {
    const row: Record<string, unknown> = {
      corpus,
      scope: s.scope,
      messages,
      calls: s.calls,
      callsPer100: per100(s.calls),
      inputPer100: per100(s.inputTokens),
      outputPer100: per100(s.outputTokens),
      cacheReadPer100: per100(s.cacheReadTokens),
      cacheWritePer100: per100(s.cacheWriteTokens),
      failedCallShare: round((s.failedCalls + s.abandonedCalls) / Math.max(1, s.calls), 3),
    };
    for (const [name, price] of Object.entries(PRICE_TABLES)) {
      row[`usdPer100_${name}`] = round((costOf(s, price) * 100) / Math.max(1, messages), 6);
    }
    if (s.estimatedCost && s.wastedCost !== null) row.failedCostShare = round(s.wastedCost / s.estimatedCost, 3);
    return row;
  });
}

/** §12 bench: summarizer calls and tokens per 100 messages per scope (demo campaign, LoCoMo replay), priced twice. */
export async function runUsageBench(options: BenchOptions): Promise<Figures> {
  const tmp = tempDir('usage');
  const mock = await startMockAnthropic();
  mock.setHandler((body, n) =>
    (n + 1) % ERROR_EVERY === 0
      ? { status: 500 }
      : (n + 1) % EMPTY_EVERY === 0
        ? { text: '' }
        : defaultMockHandler(body, n),
  );
  const rows: Record<string, unknown>[] = [];
  const notes: string[] = [];
  try {
    const service = await spawnServer({
      dir: tmp.path,
      env: mockedAnthropicEnv(join(tmp.path, 'lorekeeper.db'), mock.baseUrl, { SUMMARY_ATTEMPTS: '2' }),
    });
    try {
      const http = new HttpClient(service.url);
      // The demo campaign: `npm run demo`'s script, played against this service.
      const demo = await promisify(execFile)(process.execPath, [join(repoRoot(), 'dist/scripts/demo.js')], {
        env: { ...process.env, LOREKEEPER_URL: service.url },
        maxBuffer: 16 * 1024 * 1024,
      });
      const demoId = /campaign (demo-[a-z0-9]+)/.exec(demo.stdout)?.[1];
      if (!demoId) throw new Error(`demo campaign id not found in: ${demo.stdout.slice(0, 300)}`);
      await http.settled(demoId);
      rows.push(...rowsOf('demo', await messageCount(http, demoId), await http.get(`/v1/campaigns/${demoId}/usage`)));

      const path = locomoPath(repoRoot());
      const data = loadLocomo(path);
      if (!data) notes.push(`LoCoMo data not found at ${path} (set LOCOMO_PATH): replay not measured`);
      for (const sample of (data ?? []).slice(0, options.quick ? 1 : 3)) {
        const sessions = sessionsOf(sample).slice(0, options.quick ? 4 : undefined);
        const cid = await replay(http, sample, sessions);
        await http.settled(cid, 600_000);
        rows.push(
          ...rowsOf(
            `locomo ${sample.sample_id}${options.quick ? ` (${sessions.length} sessions)` : ''}`,
            await messageCount(http, cid),
            await http.get(`/v1/campaigns/${cid}/usage`),
          ),
        );
      }
    } finally {
      await service.stop();
    }
  } finally {
    await mock.close();
    tmp.cleanup();
  }
  notes.push(
    'Anthropic adapter against the local mock (its token counts are ~chars/4 estimates; the mock caches a ' +
      'cache_control system block after its first use, like the API but with no minimum length).',
    `Faults injected: every ${EMPTY_EVERY}th answer empty (billed), every ${ERROR_EVERY}th a 500 (not billed); ` +
      'SUMMARY_ATTEMPTS=2.',
    `usdPer100_<table>: the same tokens priced at ${Object.entries(PRICE_TABLES)
      .map(([k, p]) => `${k} (in ${p.input}, out ${p.output}, cache read ${p.cacheRead}, cache write ${p.cacheWrite})`)
      .join(' and ')} USD per million tokens.`,
    'failedCallShare: failed + abandoned attempts ÷ all attempts; failedCostShare: their cost ÷ all cost, ' +
      'at the claude-haiku-4-5 prices the ledger uses.',
  );
  return { usage: rows, notes };
}
