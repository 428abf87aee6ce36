import { Database } from '@app/database';
import { Fts5SearchIndex } from './fts5/fts5.search-index';
import { Fts5Timeline } from './fts5/fts5.timeline';
import { PostgresSearchIndex } from './postgres/postgres.search-index';
import { PostgresTimeline } from './postgres/postgres.timeline';
import { SearchIndex, SearchIndexOptions, SearchTimeline } from './search-index.port';

/** The adapter for the database's dialect: FTS5 on SQLite, tsvector on PostgreSQL. */
export function createSearchIndex(db: Database, options: SearchIndexOptions = {}): SearchIndex {
  return db.dialect === 'postgres' ? new PostgresSearchIndex(db, options) : new Fts5SearchIndex(db, options);
}

/** The index's rows in fork, rewind and delete (DESIGN §10), for the database's dialect. */
export function createSearchTimeline(db: Database): SearchTimeline {
  return db.dialect === 'postgres' ? new PostgresTimeline() : new Fts5Timeline();
}
