import { createDataSource, Database, runMigrations } from '@app/database';
import { DataSource } from 'typeorm';
import { ENTITIES } from '../../apps/memory-service/src/core.module';
import { MIGRATIONS } from '../../apps/memory-service/src/migrations';
import { tempDb } from './test-app';
import { createTestSchema, testDatabaseUrl } from './test-postgres';

export interface TestDatabase {
  db: Database;
  dataSource: DataSource;
  /** DATABASE_URL of this database (sqlite:<file> or postgres://…?options=search_path). */
  url: string;
  close(): Promise<void>;
}

/**
 * The service's schema (migrations, no app) on a fresh database: a PostgreSQL schema when
 * TEST_DATABASE_URL is set, else a temp SQLite file. For adapter and contract suites.
 */
export async function openTestDatabase(): Promise<TestDatabase> {
  const pg = testDatabaseUrl();
  if (pg) {
    const schema = await createTestSchema(pg);
    const dataSource = createDataSource({
      database: { type: 'postgres', url: schema.url },
      entities: ENTITIES,
      migrations: MIGRATIONS,
    });
    await dataSource.initialize();
    await runMigrations(dataSource);
    return {
      db: new Database(dataSource),
      dataSource,
      url: schema.url,
      close: async () => {
        await dataSource.destroy();
        await schema.drop();
      },
    };
  }
  const file = tempDb();
  const dataSource = createDataSource({
    database: { type: 'sqlite', path: file.path },
    entities: ENTITIES,
    migrations: MIGRATIONS,
  });
  await dataSource.initialize();
  await runMigrations(dataSource);
  return {
    db: new Database(dataSource),
    dataSource,
    url: `sqlite:${file.path}`,
    close: async () => {
      await dataSource.destroy();
      file.cleanup();
    },
  };
}
