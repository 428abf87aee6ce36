export * from './errors';
export * from './problems';
export * from './clock';
export * from './ids';
export * from './config';
export * from './async-mutex';
export * from './api-keys';
export * from './model-prices';
