import { invalidVersion } from '@app/common';
import { CampaignState } from './domain/state';
import { Horizon, UNBOUNDED_MEMORY_VERSION } from './timelines/horizon';

/**
 * The largest bound a statement binds for a memory version: PostgreSQL types a parameter compared with an `integer`
 * column as int4, so "no bound" (UNBOUNDED_MEMORY_VERSION) is clamped to int4's maximum.
 */
const INT4_MAX = 2_147_483_647;

/** A horizon's memory version as a statement parameter (see INT4_MAX). */
export const memoryBound = (h: Pick<Horizon, 'memoryVersion'>): number => Math.min(h.memoryVersion, INT4_MAX);

/** The current horizon of a loaded state: no extra read (the memory stream and the clock are unbounded). */
export function currentHorizon(state: CampaignState): Horizon {
  return {
    version: state.version,
    timeline: state.timeline ?? 1,
    messageCount: state.messageCount,
    memoryVersion: UNBOUNDED_MEMORY_VERSION,
    at: null,
    current: true,
  };
}

/** `asOf` must name a version the campaign has had: 1 ≤ asOf ≤ version (§10), else 400 INVALID_VERSION. */
export function checkAsOf(asOf: number, version: number): void {
  if (!Number.isInteger(asOf) || asOf < 1 || asOf > version) throw invalidVersion('asOf', asOf, version);
}
