import { invalid } from '@app/common';
import { CampaignState } from './domain/state';

/**
 * How far one read sees (DESIGN §10 "As-of reads"): the game stream through `version`, the messages below
 * `messageCount`, the memory stream through `memoryVersion` (its outcomes of game events ≤ version), facts judged at
 * `at`. Built once per request by `CampaignReader.horizon`; every reader takes it, and a current read passes the
 * current horizon, so there is one code path whatever the version.
 */
export interface Horizon {
  version: number;
  /** 1, +1 per rewind (§10 "Rewind"). */
  timeline: number;
  /** Messages with an index below this existed at `version`. */
  messageCount: number;
  /** Highest memory-stream version recorded for game events ≤ `version`; UNBOUNDED for a current read. */
  memoryVersion: number;
  /** `recordedAt` of game event `version` (the clock of an as-of read); null = now (a current read). */
  at: string | null;
  /** True when the read asked for a version (`asOf`): history, not the live campaign. */
  past: boolean;
}

/**
 * The bound of a current read's memory versions: no bound, written as a number both dialects bind to an `integer`
 * column (PostgreSQL types a parameter compared with one as int4).
 */
export const UNBOUNDED = 2_147_483_647;

/** The current horizon of a loaded state: no extra read (the memory stream and clock are unbounded). */
export function currentHorizon(state: CampaignState & { timeline?: number }): Horizon {
  return {
    version: state.version,
    timeline: state.timeline ?? 1,
    messageCount: state.messageCount,
    memoryVersion: UNBOUNDED,
    at: null,
    past: false,
  };
}

/** `asOf` must name a version the campaign has had: 1 ≤ asOf ≤ version (§10), else 400 INVALID_VERSION. */
export function checkAsOf(asOf: number, version: number): void {
  if (!Number.isInteger(asOf) || asOf < 1 || asOf > version)
    throw invalid('INVALID_VERSION', `asOf must be a version from 1 to ${version} (the campaign's version), not ${asOf}`);
}
