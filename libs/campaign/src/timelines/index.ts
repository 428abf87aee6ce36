export * from './horizon';
export * from './timeline.port';
export * from './timeline.service';
export type { TimelineRecord, TimelineRewind } from '../projections/campaign.timeline';
export { TimelineHistory } from '../projections/campaign.timeline';
