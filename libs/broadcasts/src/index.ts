export * from './broadcast-events';
export * from './broadcast.entity';
export * from './broadcast.service';
export * from './broadcasts.module';
