import { InitialSchema1763900000000 } from './1763900000000-initial-schema';

/** Every migration, oldest first; run at boot. */
export const MIGRATIONS = [InitialSchema1763900000000];
