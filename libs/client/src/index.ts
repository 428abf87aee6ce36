export * from './lorekeeper.client';
export * from './sse';
