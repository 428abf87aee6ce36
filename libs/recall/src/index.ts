export * from './search.service';
export * from './search-index.rebuilder';
export * from './recall.module';
