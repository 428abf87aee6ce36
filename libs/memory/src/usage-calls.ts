import { NewEvent, StoredEvent } from '@app/event-store';
import { EntityManager } from 'typeorm';
import { LedgerEntry, ledgerEntry, ModelCall } from '@app/summarizer';
import { PUBLIC_SUMMARY_SUBJECT, summarySubject } from './memory-events';

/** The attempts of one summary (one scope and subject), waiting for the outcome they produce to commit. */
export interface CallGroup {
  scope: string;
  subjectId: string;
  calls: ModelCall[];
  /** Ledger row ids of the calls written ahead, replaced when the outcome commits. */
  written: Map<ModelCall, number>;
}

/** Where the usage ledger of the worker goes: written with the outcome, or apart when the outcome will never commit. */
export interface UsageSink {
  pending(entry: LedgerEntry): Promise<number>;
  settle(m: EntityManager, pendingIds: number[], entries: LedgerEntry[]): Promise<void>;
  abandon(entries: LedgerEntry[], writtenIds: number[]): Promise<void>;
  sweep(campaignId: string): Promise<number>;
}

/** The scope and subject an outcome event is about, matching the CallGroup that produced it. */
function keyOf(e: NewEvent): string {
  const d = e.data as Record<string, unknown>;
  // §10 revisions are their own scope: the subject is the memory id, or `summary:<subject>` for a "Previously".
  if (e.type === 'MemoryRevised') return `revision:${String(d.memoryId)}`;
  if (e.type === 'MemorySkipped' && d.revisionOf) return `revision:${String(d.revisionOf)}`;
  if (e.type === 'RollingSummaryUpdated' && d.revision) {
    const subject = d.publicView ? PUBLIC_SUMMARY_SUBJECT : summarySubject((d.viewer as string | null) ?? null);
    return `revision:summary:${subject}`;
  }
  if (e.type === 'GlossaryTermAdded') return `glossary:${String(d.term)}`;
  if (e.type === 'RollingSummaryUpdated') return `summary:${summarySubject((d.viewer as string | null) ?? null)}`;
  return `${String(d.scope)}:${String(d.subjectId)}`;
}

/**
 * Ledger rows of a trigger's committed outcomes: each outcome takes the oldest unclaimed group of its scope and
 * subject (a trigger handles its tasks in order, so groups and outcomes pair up in that order).
 */
export function committedEntries(
  campaignId: string,
  trigger: StoredEvent,
  appended: StoredEvent[],
  groups: CallGroup[],
  model: string,
): LedgerEntry[] {
  const left = [...groups];
  const out: LedgerEntry[] = [];
  for (const e of appended) {
    const i = left.findIndex((g) => `${g.scope}:${g.subjectId}` === keyOf(e));
    if (i < 0) continue;
    const [group] = left.splice(i, 1);
    const revises = e.type === 'MemoryRecorded' || e.type === 'MemoryRevised';
    const memoryId = revises ? String((e.data as { memoryId: string }).memoryId) : null;
    const at = { campaignId, scope: group.scope, subjectId: group.subjectId, triggerVersion: trigger.version, model };
    out.push(...group.calls.map((c) => ledgerEntry(c, at, { memoryVersion: e.version, memoryId })));
  }
  // A group no outcome claimed (none expected) was still paid for: kept as abandoned rather than lost.
  out.push(...abandonedEntries(campaignId, trigger, left, model, false));
  return out;
}

/**
 * Ledger rows of calls whose outcome will never commit; `unwritten`: only those not written ahead (marked in place).
 */
export function abandonedEntries(
  campaignId: string,
  trigger: StoredEvent,
  groups: CallGroup[],
  model: string,
  unwritten = true,
): LedgerEntry[] {
  return groups.flatMap((g) =>
    g.calls
      .filter((c) => !unwritten || !g.written.has(c))
      .map((c) =>
        ledgerEntry(
          c,
          { campaignId, scope: g.scope, subjectId: g.subjectId, triggerVersion: trigger.version, model },
          'abandoned',
        ),
      ),
  );
}

/** Row ids written ahead for these groups. */
export const writtenIds = (groups: CallGroup[]): number[] => groups.flatMap((g) => [...g.written.values()]);
