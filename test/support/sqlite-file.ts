import {
  CampaignRecord,
  CampaignStateRowRecord,
  CampaignTimelineRecord,
  MessageRecord,
  MessageWitnessRecord,
  ToolCallRecord,
} from '@app/campaign';
import { createDataSource, Database, DataSourceSpec, IdempotencyRecord } from '@app/database';
import { EventRecord } from '@app/event-store';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';

/** The tables a CampaignRunner and CampaignReader use: events, campaign rows and state rows, messages, keys. */
export const CAMPAIGN_ENTITIES = [
  EventRecord,
  CampaignRecord,
  CampaignStateRowRecord,
  CampaignTimelineRecord,
  MessageRecord,
  ToolCallRecord,
  IdempotencyRecord,
  MessageWitnessRecord,
];

export interface SqliteFile {
  dir: string;
  ds: DataSource;
  db: Database;
  /** Closes the data source and removes the file's directory. */
  close(): Promise<void>;
}

/**
 * A fresh SQLite file with the tables of `entities` (synchronized from the entities, no migrations): for unit specs
 * that wire the real pieces by hand. The service's schema (migrations, PostgreSQL too) is `openTestDatabase`'s.
 */
export async function openSqliteFile(
  entities: DataSourceSpec['entities'] = CAMPAIGN_ENTITIES,
  prefix = 'lorekeeper-spec-',
): Promise<SqliteFile> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const ds = createDataSource({
    database: { type: 'sqlite', path: join(dir, 'lk.db') },
    entities,
    migrations: [],
    synchronize: true,
  });
  await ds.initialize();
  return {
    dir,
    ds,
    db: new Database(ds),
    close: async () => {
      await ds.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
