import { ModelCall } from '../retry';

/** Scopes of model calls (DESIGN §12): memories, "Previously", glossary definitions, revisions. */
export type UsageScope = 'location' | 'npc' | 'world' | 'summary' | 'glossary' | 'revision';

/**
 * How a recorded call ended: its answer was used, it failed (empty, error, timeout), or its outcome never committed
 * (abandoned). `pending`: written ahead, before its outcome commits; a crash leaves it for the next owner to abandon.
 */
export type LedgerOutcome = 'ok' | 'empty' | 'error' | 'timeout' | 'abandoned' | 'pending';

/** One row of the usage ledger: one attempt of one model call; `inputTokens` leaves out the cached (priced apart). */
export interface LedgerEntry {
  campaignId: string;
  scope: string;
  subjectId: string;
  attempt: number;
  model: string;
  outcome: LedgerOutcome;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  latencyMs: number;
  requests: number;
  /** The game event that triggered the call. */
  triggerVersion: number;
  /** The memory-stream event the call produced or failed for; null when abandoned or pending. */
  memoryVersion: number | null;
  /** The memory it produced (location, npc, world scopes). */
  memoryId: string | null;
  calledAt: string;
}

/** The ledger row of an attempt; `abandoned` whatever the attempt returned when its outcome never committed. */
export function ledgerEntry(
  call: ModelCall,
  at: { campaignId: string; scope: string; subjectId: string; triggerVersion: number; model: string },
  outcome: { memoryVersion: number; memoryId: string | null } | 'abandoned' | 'pending',
): LedgerEntry {
  const cached = call.cacheReadTokens + call.cacheWriteTokens;
  const linked = typeof outcome === 'object' ? outcome : null;
  return {
    campaignId: at.campaignId,
    scope: at.scope,
    subjectId: at.subjectId,
    attempt: call.attempt,
    model: call.model ?? at.model,
    outcome:
      outcome === 'pending'
        ? 'pending'
        : outcome === 'abandoned' || call.outcome === 'aborted'
          ? 'abandoned'
          : call.outcome,
    inputTokens: Math.max(0, call.inputTokens - cached),
    outputTokens: call.outputTokens,
    cacheReadTokens: call.cacheReadTokens,
    cacheWriteTokens: call.cacheWriteTokens,
    latencyMs: call.latencyMs,
    requests: call.requests,
    triggerVersion: at.triggerVersion,
    memoryVersion: linked?.memoryVersion ?? null,
    memoryId: linked?.memoryId ?? null,
    calledAt: call.startedAt,
  };
}
