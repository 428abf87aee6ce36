export * from './horizon';
export * from './timeline.port';
