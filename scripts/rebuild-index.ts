import 'reflect-metadata';
import { AppConfig, loadConfig } from '@app/common';
import { createDataSource, Database } from '@app/database';
import { TypeOrmEventStore } from '@app/event-store';
import { MemoryReader } from '@app/memory';
import { RebuildReport, SearchIndexRebuilder } from '@app/recall';
import { createSearchIndex } from '@app/search';
import { ENTITIES } from '../apps/memory-service/src/core.module';
import { MIGRATIONS } from '../apps/memory-service/src/migrations';

/**
 * `npm run rebuild-index`: empties the search index and re-creates it from the event log (MessageRecorded,
 * BroadcastPosted) and the memories table, in one transaction. Uses DATABASE_URL.
 */
export async function rebuildIndex(config: AppConfig): Promise<RebuildReport> {
  const ds = createDataSource({ database: config.database, entities: ENTITIES, migrations: MIGRATIONS });
  await ds.initialize();
  try {
    await ds.runMigrations({ transaction: 'each' });
    const db = new Database(ds);
    return await new SearchIndexRebuilder(
      db,
      new TypeOrmEventStore(db),
      createSearchIndex(db),
      new MemoryReader(db),
    ).rebuild();
  } finally {
    await ds.destroy();
  }
}

if (require.main === module) {
  const started = Date.now();
  rebuildIndex(loadConfig())
    .then((r) => {
      console.log(
        `search index rebuilt from ${r.events} events: ${r.messages} messages, ${r.memories} memories, ${r.broadcasts} broadcasts in ${Date.now() - started} ms`,
      );
    })
    .catch((err) => {
      console.error(`rebuild-index failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    });
}
