import 'reflect-metadata';
import { CampaignReader } from '@app/campaign';
import { AppConfig, FixedClock } from '@app/common';
import { ContextBuildLog, ContextService, createComposer, TiktokenCounter } from '@app/context';
import { createDataSource, Database, sql } from '@app/database';
import { TypeOrmEventStore } from '@app/event-store';
import { CheckpointStore, LayersReader, MemoryReader, WorkerProgress } from '@app/memory';
import { SearchService } from '@app/recall';
import { createSearchIndex } from '@app/search';
import { SnapshotStore } from '@app/state';
import { Logger } from '@nestjs/common';
import { workerData } from 'node:worker_threads';
import { ENTITIES } from '../core.module';
import { ReadServices, ReadTask, ReadWorkerData, runRead, WorkerAnswer } from './read-task';

/**
 * A read worker (DESIGN §13): its own read connection — a second SQLite connection on the file (WAL: it reads the
 * last commit and never waits for the writer), or its own PostgreSQL pool — and its own readers and composer, the
 * classes the main thread uses. It never writes: on SQLite the connection is query-only.
 */
/** PostgreSQL connections per read worker. */
const WORKER_POOL_SIZE = 4;

async function start(config: AppConfig): Promise<(task: ReadTask) => Promise<WorkerAnswer>> {
  // Nest's default logger would print from this thread past the app's LOG_LEVEL and pino: only what needs a look.
  Logger.overrideLogger(config.logLevel === 'silent' ? false : ['error', 'warn']);
  // A worker runs one read at a time; its sections read in parallel, a few connections each (replicas × workers
  // must stay well under PostgreSQL's max_connections).
  const dataSource = createDataSource({
    database: config.database,
    entities: ENTITIES,
    migrations: [],
    poolSize: WORKER_POOL_SIZE,
  });
  await dataSource.initialize();
  const db = new Database(dataSource);
  if (db.dialect === 'sqlite') await sql(db.manager, 'PRAGMA query_only = ON');
  const clock = new FixedClock();
  const campaigns = new CampaignReader(db, new TypeOrmEventStore(db));
  const memories = new MemoryReader(db);
  const index = createSearchIndex(db);
  const deps = {
    counter: new TiktokenCounter(),
    clock,
    campaigns,
    memories,
    layers: new LayersReader(db, campaigns),
    snapshots: new SnapshotStore(db, clock, config.tickSeconds),
    index,
  };
  let log: ContextBuildLog | undefined;
  const context = new ContextService(
    campaigns,
    new CheckpointStore(db),
    new WorkerProgress(),
    createComposer(deps, config),
    config.contextTokenBudget,
    (line) => (log = line),
  );
  const services: ReadServices = {
    context,
    search: new SearchService(campaigns, index, memories),
    campaigns,
    memories,
  };
  // One read at a time per worker (the pool's concurrentTasksPerWorker is 1), so the clock and log are the read's own.
  return async (task) => {
    clock.set(new Date(task.now));
    log = undefined;
    const outcome = await runRead(services, task);
    return log ? { ...outcome, log } : outcome;
  };
}

// Started as the thread loads (its connection opens before the first read arrives). A failed start fails each read
// instead of the load: piscina loads this file with require() and, when that throws or its handler rejects, loads
// it again with import(); on Node 20 that second, asynchronous load of Nest's ESM packages next to the first one's
// synchronous require(esm) aborts the whole process (v8 "IsGraphAsync must be used on an instantiated module").
const ready = start((workerData as ReadWorkerData).config);
ready.catch(() => undefined);

/** Piscina's handler: one read, once the thread's services are up. */
export default function handle(task: ReadTask): Promise<WorkerAnswer> {
  return ready.then((run) => run(task));
}
