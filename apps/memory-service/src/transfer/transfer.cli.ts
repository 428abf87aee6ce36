import 'reflect-metadata';
import { CampaignProjector, messageSearch } from '@app/campaign';
import { ConfigError, loadConfig, SystemClock } from '@app/common';
import { createDataSource, Database } from '@app/database';
import { TypeOrmEventStore } from '@app/event-store';
import { MemoryProjector, StreamReplay, WordingSearch } from '@app/memory';
import { createSearchIndex } from '@app/search';
import { AccountProjection, SnapshotTransfer } from '@app/state';
import { UsageLedger } from '@app/summarizer';
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ENTITIES } from '../core.module';
import { MIGRATIONS } from '../migrations';
import { CampaignTransfer } from './campaign-transfer';
import { ImportReply } from './campaign.importer';

/** Where a command reports (tests capture it). */
export interface CommandOutput {
  out: (line: string) => void;
  err: (line: string) => void;
}

const CONSOLE: CommandOutput = { out: (l) => console.log(l), err: (l) => console.error(l) };

const EXPORT_USAGE = 'usage: lorekeeper export --out <file.ndjson>   (every campaign of DATABASE_URL, one file)';
const IMPORT_USAGE = 'usage: lorekeeper import <file.ndjson>         (into DATABASE_URL; ids in use are refused)';

/**
 * The service's projections without the service (no worker, no HTTP), as `npm run rebuild` builds them: the search
 * index fed by both projectors, accounts, and memory's projections of game events. An import needs no checkpoint
 * projection: it writes each campaign's checkpoint itself.
 */
function offlineTransfer(db: Database, onImported?: (reply: ImportReply, heldMs: number) => void): CampaignTransfer {
  const campaigns = new CampaignProjector();
  const memories = new MemoryProjector();
  const index = createSearchIndex(db);
  campaigns.addProjection(messageSearch(index));
  memories.addIndexer(new WordingSearch(index));
  campaigns.addProjection(new AccountProjection());
  return new CampaignTransfer(
    db,
    new TypeOrmEventStore(db),
    campaigns,
    () => StreamReplay.withMemoryProjections(campaigns, memories),
    new UsageLedger(db),
    new SnapshotTransfer(db),
    new SystemClock(),
    onImported,
  );
}

/**
 * Runs `fn` on the database of DATABASE_URL (migrated first, as the service does at boot), with the service's
 * projections but not the service. `onImported`: after each imported campaign's commit (the bench times the writer).
 */
export async function withDatabase<T>(
  env: NodeJS.ProcessEnv,
  fn: (t: CampaignTransfer) => Promise<T>,
  onImported?: (reply: ImportReply, heldMs: number) => void,
): Promise<T> {
  const config = loadConfig(env);
  const ds = createDataSource({ database: config.database, entities: ENTITIES, migrations: MIGRATIONS });
  await ds.initialize();
  try {
    await ds.runMigrations({ transaction: 'each' });
    return await fn(offlineTransfer(new Database(ds), onImported));
  } finally {
    await ds.destroy();
  }
}

const failure = (err: unknown): string =>
  err instanceof ConfigError ? err.message : err instanceof Error ? err.message : String(err);

/** `lorekeeper export --out backup.ndjson`: every campaign of the database, each as its §15 export, one file. */
export async function exportCommand(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  io: CommandOutput = CONSOLE,
): Promise<number> {
  const at = argv.indexOf('--out');
  const file = at >= 0 ? argv[at + 1] : undefined;
  if (!file || argv.length !== 2) {
    io.err(EXPORT_USAGE);
    return 2;
  }
  const started = Date.now();
  try {
    const counted = await withDatabase(env, async (transfer) => {
      const ids = await transfer.campaignIds();
      let lines = 0;
      async function* all() {
        for (const id of ids) {
          const { lines: campaign } = await transfer.export(id);
          for await (const line of campaign) {
            lines++;
            yield line;
          }
        }
      }
      await pipeline(Readable.from(all()), createWriteStream(file) as Writable);
      return { campaigns: ids.length, lines };
    });
    io.out(`exported ${counted.campaigns} campaigns (${counted.lines} lines) to ${file} in ${Date.now() - started} ms`);
    return 0;
  } catch (err) {
    io.err(`export failed: ${failure(err)}`);
    return 1;
  }
}

/** `lorekeeper import backup.ndjson`: checks the whole file, then imports each campaign in one transaction. */
export async function importCommand(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  io: CommandOutput = CONSOLE,
): Promise<number> {
  const [file] = argv;
  if (!file || argv.length !== 1 || file.startsWith('-')) {
    io.err(IMPORT_USAGE);
    return 2;
  }
  const started = Date.now();
  try {
    // A database without campaigns exports an empty file: importing it imports nothing.
    if ((await stat(file)).size === 0) {
      io.out(`${file} holds no campaign: nothing imported`);
      return 0;
    }
    // The whole file is checked first; then each campaign commits on its own.
    let held = 0;
    const replies = await withDatabase(
      env,
      (transfer) => transfer.importFile(file, { single: false }),
      (_reply, ms) => (held += ms),
    );
    const events = replies.reduce((n, r) => n + r.version + r.memoryVersion, 0);
    io.out(
      `imported ${replies.length} campaigns (${events} events) from ${file} in ${Date.now() - started} ms ` +
        `(transactions ${Math.round(held)} ms)`,
    );
    return 0;
  } catch (err) {
    const code = (err as { code?: string }).code;
    io.err(`import failed${code && /^[A-Z_]+$/.test(code) ? ` (${code})` : ''}: ${failure(err)}`);
    return 1;
  }
}
