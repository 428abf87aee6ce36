export * from './replica-metrics';
export * from './postgres-lease.ownership';
export * from './replica-coordinator';
export * from './replica.module';
