export * from './memory-events';
export * from './memory.entity';
export * from './memory.projector';
export * from './memory.reader';
export * from './memory.worker';
export * from './message-selection';
export * from './progress';
export * from './ownership/campaign-ownership.port';
