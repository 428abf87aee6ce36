import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { withDatabase } from '../apps/memory-service/src/transfer/transfer.cli';
import { BenchOptions, Figures } from './support/bench-suite';
import { HistorySeeder } from './support/history-seeder';
import { tempDir } from './support/paths';
import { round, sizeLabel as label } from './support/stats';

interface TransferRow {
  events: number;
  exportSeconds: number;
  exportEventsPerSecond: number;
  exportRssGrowthMb: number;
  fileMb: number;
  importSeconds: number;
  importEventsPerSecond: number;
  /** The import's transaction: how long SQLite's one writer (and, on its one connection, every read) waited. */
  writerHeldSeconds: number;
  importRssGrowthMb: number;
  /** CPU seconds of the import (user + system): on a shared machine, steadier than wall time. */
  importCpuSeconds: number;
}

/**
 * Portability (DESIGN §15): a seeded campaign (the worker's memories recorded, as after a game) exported to NDJSON and
 * imported into a new SQLite file — the code behind `lorekeeper export|import` and the two routes, without HTTP.
 * 100k events always; a 1M-event campaign in the full run only.
 */
export async function runTransferBench(options: BenchOptions): Promise<Figures> {
  const sizes = options.quick ? [100_000] : [100_000, 1_000_000];
  const tmp = tempDir('transfer');
  try {
    const rows: TransferRow[] = [];
    for (const size of sizes) rows.push(await oneSize(tmp.path, size));
    const small = rows[0];
    const big = rows[rows.length - 1];
    const figures: Figures = {
      [`export events/s at ${label(small.events)}`]: small.exportEventsPerSecond,
      [`import events/s at ${label(small.events)}`]: small.importEventsPerSecond,
      [`import events per CPU second at ${label(small.events)}`]: Math.round(small.events / small.importCpuSeconds),
      rows,
      notes: [
        'export: every campaign of a SQLite file (one, seeded with the worker caught up) to one NDJSON file',
        'import: the file checked (pass 1), then replayed into a new SQLite file in one transaction (pass 2); ' +
          'writer held = that transaction',
        'RSS growth: the highest RSS (sampled every 50 ms) above the one at the start; constant memory means it ' +
          'does not grow with the campaign',
        'numbers are from a shared 2-core machine: noisy',
      ],
    };
    if (big !== small) {
      figures[`import of ${label(big.events)} events: seconds`] = big.importSeconds;
      figures[`import of ${label(big.events)} events: SQLite writer held, seconds`] = big.writerHeldSeconds;
      figures[`export of ${label(big.events)} events: seconds`] = big.exportSeconds;
    }
    return figures;
  } finally {
    tmp.cleanup();
  }
}

async function oneSize(dir: string, size: number): Promise<TransferRow> {
  const source = join(dir, `source-${label(size)}.db`);
  const target = join(dir, `target-${label(size)}.db`);
  const file = join(dir, `export-${label(size)}.ndjson`);
  await HistorySeeder.seedAll(source, [size], (events) => `transfer-${label(events)}`);

  let events = 0;
  const exportRun = await sampled(() =>
    withDatabase({ DATABASE_URL: `sqlite:${source}` }, async (t) => {
      async function* lines() {
        for (const id of await t.campaignIds())
          for await (const line of (await t.export(id)).lines) {
            if (line.startsWith('{"stream"')) events++;
            yield line;
          }
      }
      await pipeline(Readable.from(lines()), createWriteStream(file) as Writable);
    }),
  );
  let held = 0;
  const importRun = await sampled(() =>
    withDatabase(
      { DATABASE_URL: `sqlite:${target}` },
      (t) => t.importFile(file, { single: false }),
      (_reply, ms) => (held += ms),
    ),
  );
  return {
    events,
    exportSeconds: round(exportRun.seconds, 2),
    exportEventsPerSecond: Math.round(events / exportRun.seconds),
    exportRssGrowthMb: exportRun.rssGrowthMb,
    fileMb: round((await stat(file)).size / 1024 ** 2, 1),
    importSeconds: round(importRun.seconds, 2),
    importEventsPerSecond: Math.round(events / importRun.seconds),
    writerHeldSeconds: round(held / 1000, 2),
    importRssGrowthMb: importRun.rssGrowthMb,
    importCpuSeconds: round(importRun.cpuSeconds, 1),
  };
}

/** Wall time and CPU time of `run`, and how far the RSS rose above its start while it ran. */
async function sampled(
  run: () => Promise<unknown>,
): Promise<{ seconds: number; cpuSeconds: number; rssGrowthMb: number }> {
  const start = process.memoryUsage().rss;
  let peak = start;
  const cpu = process.cpuUsage();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const t0 = performance.now();
  try {
    await run();
  } finally {
    clearInterval(timer);
  }
  const used = process.cpuUsage(cpu);
  return {
    seconds: (performance.now() - t0) / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
    rssGrowthMb: Math.round((peak - start) / 1024 ** 2),
  };
}
