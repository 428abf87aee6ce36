import { Database, DATABASE } from '@app/database';
import { Global, Module } from '@nestjs/common';
import { createSearchIndex } from './search-index.factory';
import { SEARCH_INDEX } from './search-index.port';

/**
 * The full-text index (FTS5 or PostgreSQL) as infrastructure: the owners of what is indexed write through it in their
 * projections' transactions (DESIGN §7); the search feature that reads it lives above (libs/recall).
 */
@Global()
@Module({
  providers: [{ provide: SEARCH_INDEX, useFactory: (db: Database) => createSearchIndex(db), inject: [DATABASE] }],
  exports: [SEARCH_INDEX],
})
export class SearchModule {}
