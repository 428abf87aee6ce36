import { BenchSuite } from './support/bench-suite';
import { runContextLatencyBench } from './context-latency.bench';
import { runFootprintBench } from './footprint.bench';
import { runIngestBench } from './ingest.bench';
import { runLocomoBench } from './locomo.bench';
import { runTokenEconomyBench } from './token-economy.bench';
import { runWorkerThroughputBench } from './worker-throughput.bench';
import { runSearchBench } from './search.bench';
import { runStateBench } from './state.bench';
import { runPgBench } from './pg.bench';
import { runLayeredBench } from './layered.bench';
import { runMcpBench } from './mcp.bench';
import { runStreamBench } from './stream.bench';
import { runHostileBench } from './hostile.bench';
import { runUsageBench } from './usage.bench';
import { runTimelinesBench } from './timelines.bench';
import { runFairShareBench } from './fair-share.bench';
import { runTransferBench } from './transfer.bench';

/**
 * Every benchmark suite, in the order `npm run bench` runs them. Adding one = one import + one line:
 * `{ name, title, run }`, where `run({ quick })` resolves to the suite's figures (printed and saved as JSON).
 */
export const SUITES: BenchSuite[] = [
  { name: 'ingest', title: '1. Ingest: POST /messages vs raw Fastify + SQLite', run: runIngestBench },
  { name: 'context', title: '2. Context read vs history size', run: runContextLatencyBench },
  { name: 'worker', title: '3. Memory worker throughput and lag', run: runWorkerThroughputBench },
  { name: 'tokens', title: '4. Token economy: summarizer input per scope', run: runTokenEconomyBench },
  { name: 'locomo', title: '5. LoCoMo answer recall vs tokens served', run: runLocomoBench },
  { name: 'footprint', title: '6. Footprint: cold start and idle memory', run: runFootprintBench },
  {
    name: 'state',
    title: '7. Game-state cache: context size reduction and digest injections (§5–6)',
    run: async (o) => ({ ...(await runStateBench(o)) }),
  },
  { name: 'search', title: '8. Search and window latency vs history size (§7)', run: runSearchBench },
  { name: 'pg', title: '9. PostgreSQL: 1 vs 3 replicas, and SQLite single-replica (§9)', run: runPgBench },
  {
    name: 'layered',
    title: '10. LoCoMo: layered dm context vs full transcript, last 20 and plain BM25 at 1,000/2,000/4,000 tokens (§8)',
    run: runLayeredBench,
  },
  { name: 'mcp', title: '11. MCP server: stdio connect time and first tools/list', run: runMcpBench },
  {
    name: 'stream',
    title: '12. Event stream and inspector reads on 1k and 100k-event campaigns (§11)',
    run: runStreamBench,
  },
  {
    name: 'hostile',
    title: '13. Hostile input: budgeted context over pathological text vs prose, event-loop delay (issue 18)',
    run: runHostileBench,
  },
  {
    name: 'usage',
    title: '14. Usage: summarizer calls and tokens per 100 messages per scope, cost at two price tables (§12)',
    run: runUsageBench,
  },
  {
    name: 'timelines',
    title: '15. Timelines: as-of context vs current, fork time at 10k/100k/1M, retraction cost (§10)',
    run: runTimelinesBench,
  },
  {
    name: 'fair-share',
    title:
      '16. Fair share: read storm vs /health and writes, 2 read workers ÷ 1, another key while one floods, idle sockets (§13)',
    run: runFairShareBench,
  },
  {
    name: 'transfer',
    title: '17. Portability: export and import events/s at 100k, a 1M-event import (full run) (§15)',
    run: runTransferBench,
  },
];
