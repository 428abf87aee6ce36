import { InitialSchema1763900000000 } from './1763900000000-initial-schema';
import { ReplicaLeases1764000000000 } from './1764000000000-replica-leases';

/** Every migration, oldest first; run at boot. */
export const MIGRATIONS = [InitialSchema1763900000000, ReplicaLeases1764000000000];
