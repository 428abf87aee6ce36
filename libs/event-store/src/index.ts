export * from './event-store.port';
export * from './in-memory/in-memory.event-store';
export * from './typeorm/event.entity';
export * from './typeorm/database';
export * from './typeorm/typeorm.event-store';
export * from './typeorm/data-source';
export * from './typeorm/run-migrations';
export * from './typeorm/raw-sql';
