export * from './horizon';
export * from './timeline.port';
export * from './timeline.service';
