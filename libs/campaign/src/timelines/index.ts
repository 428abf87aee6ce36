export * from './horizon';
export * from './timeline.port';
export * from './timeline.service';
export type { TimelineRewind } from '../projections/campaign.timeline';
