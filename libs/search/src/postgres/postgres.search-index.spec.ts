import { createDataSource, Database } from '@app/database';
import { DataSource } from 'typeorm';
import { searchIndexContract } from '../testing/search-index.contract';
import { createPostgresSearchSchema } from './postgres.schema';
import { PostgresSearchIndex } from './postgres.search-index';

const url = process.env.TEST_DATABASE_URL ?? '';
const isPostgres = /^postgres(ql)?:\/\//.test(url);

if (isPostgres) {
  let ds: DataSource;
  searchIndexContract(
    `PostgreSQL tsvector at ${url.replace(/\/\/[^@]*@/, '//…@')}`,
    async () => {
      ds = createDataSource({ database: { type: 'postgres', url }, entities: [], migrations: [] });
      await ds.initialize();
      const runner = ds.createQueryRunner();
      await runner.startTransaction();
      const setup = await createPostgresSearchSchema(runner, true);
      await runner.commitTransaction();
      await runner.release();
      // eslint-disable-next-line no-console
      console.log(`PostgreSQL search setup: ${JSON.stringify(setup)}`);
      const db = new Database(ds);
      return { db, index: new PostgresSearchIndex(db), make: (options) => new PostgresSearchIndex(db, options) };
    },
    async () => {
      await ds.destroy();
    },
  );
} else {
  describe('SearchIndex contract: PostgreSQL tsvector', () => {
    it.skip('needs TEST_DATABASE_URL=postgres://… (a real PostgreSQL server); skipped', () => undefined);
  });
}
