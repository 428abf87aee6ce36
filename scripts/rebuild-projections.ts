import 'reflect-metadata';
import { CampaignProjector } from '@app/campaign';
import { AppConfig, loadConfig } from '@app/common';
import { createDataSource, Database } from '@app/database';
import { MemoryProjector, MemoryReader, ProjectionRebuildReport, ProjectionRebuilder } from '@app/memory';
import { TypeOrmEventStore } from '@app/event-store';
import { RebuildReport, SearchIndexRebuilder } from '@app/recall';
import { createSearchIndex } from '@app/search';
import { ENTITIES } from '../apps/memory-service/src/core.module';
import { MIGRATIONS } from '../apps/memory-service/src/migrations';

/**
 * `npm run rebuild`: with the service stopped, empties every projection of the event log (campaigns and their
 * versioned state rows, messages, witnesses, memories, cursors, glossary, rolling summaries) and replays both
 * streams into them, then rebuilds the search index the same way. Game-state snapshots, idempotency keys and
 * `campaign_timelines` (a rewind deletes its own history from the stream) are not projections and are kept: a
 * rebuilt campaign takes its timeline from the last rewind recorded there.
 */
export async function rebuildProjections(
  config: AppConfig,
): Promise<{ projections: ProjectionRebuildReport; search: RebuildReport }> {
  const ds = createDataSource({ database: config.database, entities: ENTITIES, migrations: MIGRATIONS });
  await ds.initialize();
  try {
    await ds.runMigrations({ transaction: 'each' });
    const db = new Database(ds);
    const store = new TypeOrmEventStore(db);
    const projections = await new ProjectionRebuilder(
      db,
      store,
      new CampaignProjector(),
      new MemoryProjector(),
    ).rebuild();
    const search = await new SearchIndexRebuilder(db, store, createSearchIndex(db), new MemoryReader(db)).rebuild();
    return { projections, search };
  } finally {
    await ds.destroy();
  }
}

if (require.main === module) {
  const started = Date.now();
  rebuildProjections(loadConfig())
    .then(({ projections: p, search: s }) => {
      console.log(
        `projections rebuilt: ${p.campaigns} campaigns from ${p.gameEvents} game and ${p.memoryEvents} memory events; search index: ${s.messages} messages, ${s.memories} memories, ${s.broadcasts} broadcasts; ${Date.now() - started} ms`,
      );
    })
    .catch((err) => {
      console.error(`rebuild failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    });
}
