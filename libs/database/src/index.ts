export * from './database';
export * from './raw-sql';
export * from './data-source';
export * from './run-migrations';
export * from './database.module';
export * from './idempotency.entity';
export * from './idempotency.store';
export * from './campaign-rows';
