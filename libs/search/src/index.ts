export * from './query/query-language';
export * from './search-index.port';
export * from './search-index.factory';
export * from './fts5/fts5.schema';
export * from './fts5/fts5.search-index';
export * from './postgres/postgres.schema';
export * from './postgres/postgres.search-index';
export * from './search.module';
