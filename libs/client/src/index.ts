export * from './client.types';
export * from './errors';
export * from './lorekeeper.client';
export * from './sse';
