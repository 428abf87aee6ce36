export * from './lorekeeper.client';
