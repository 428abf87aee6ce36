import { Horizon } from '../timelines/horizon';

/** What bounds a message read (DESIGN §10 "As-of reads"): the messages that existed at a version. */
export type MessageHorizon = Pick<Horizon, 'version' | 'messageCount'>;

/**
 * The one as-of filter of every message read (DESIGN §10): the messages that existed at `at` — an index below its
 * message count, a bound on the primary key or any index that ends in `idx`, so every statement keeps its plan — and
 * were not retracted by then (a retraction is a story event: before it, the message was there). A current read
 * passes the current horizon: one code path. `includeRetracted` keeps retracted ones (GET …/messages only).
 */
export function visibleAt(
  at: MessageHorizon,
  alias = 'm',
  includeRetracted = false,
): { where: string; params: unknown[] } {
  if (includeRetracted) return { where: `${alias}.idx < ?`, params: [at.messageCount] };
  return {
    where: `${alias}.idx < ? AND (${alias}.retracted_version IS NULL OR ${alias}.retracted_version > ?)`,
    params: [at.messageCount, at.version],
  };
}
