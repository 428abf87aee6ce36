import { Database } from '@app/database';
import { Fts5SearchIndex } from './fts5/fts5.search-index';
import { PostgresSearchIndex } from './postgres/postgres.search-index';
import { SearchIndex, SearchIndexOptions } from './search-index.port';

/** The adapter for the database's dialect: FTS5 on SQLite, tsvector on PostgreSQL. */
export function createSearchIndex(db: Database, options: SearchIndexOptions = {}): SearchIndex {
  return db.dialect === 'postgres' ? new PostgresSearchIndex(db, options) : new Fts5SearchIndex(db, options);
}
