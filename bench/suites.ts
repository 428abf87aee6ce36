import { BenchSuite } from './support/bench-suite';
import { runContextLatencyBench } from './context-latency.bench';
import { runFootprintBench } from './footprint.bench';
import { runIngestBench } from './ingest.bench';
import { runLocomoBench } from './locomo.bench';
import { runTokenEconomyBench } from './token-economy.bench';
import { runWorkerThroughputBench } from './worker-throughput.bench';

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
];
