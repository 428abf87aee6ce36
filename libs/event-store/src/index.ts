export * from './event-store.port';
export * from './in-memory/in-memory.event-store';
export * from './typeorm/event.entity';
export * from './typeorm/typeorm.event-store';
export * from './event-store.module';
