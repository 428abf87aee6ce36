/**
 * The chaos harness's "nothing left withheld" check (DESIGN §10). Once a campaign's worker has caught up, a memory
 * may still be withheld for one reason only: the last revision that read it failed (`MemorySkipped {revisionOf}`)
 * and no trigger has come since to try again — a fork, whose own events after its CampaignForked are retractions,
 * rewinds and forks, may never get one. Any other withheld memory is a revision the worker lost.
 */

/** A withheld memory row as the database file holds it. */
export interface WithheldRow {
  campaignId: string;
  id: string;
  /** The game version it is withheld from (the retraction's, or the trigger's of a late outcome). */
  changedVersion: number;
}

/** A memory-stream event as `GET …/events?stream=memory` lists it. */
export interface MemoryStreamEvent {
  type: string;
  data?: Record<string, unknown>;
}

/** The memory a revision outcome is about: its memoryId, or the `revisionOf` of a failed revision. */
function revisedMemory(e: MemoryStreamEvent): string | null {
  const d = e.data ?? {};
  const id = e.type === 'MemorySkipped' ? d.revisionOf : /^Memory(Revised|Withdrawn)$/.test(e.type) ? d.memoryId : null;
  return typeof id === 'string' ? id : null;
}

/**
 * The rows of one campaign left withheld with no failed revision to show for it: the campaign's last revision
 * outcome for the memory is not a `MemorySkipped` at or after the version it is withheld from.
 */
export function unexplainedWithheld(rows: WithheldRow[], memoryStream: MemoryStreamEvent[]): WithheldRow[] {
  const last = new Map<string, MemoryStreamEvent>();
  for (const e of memoryStream) {
    const id = revisedMemory(e);
    if (id !== null) last.set(id, e);
  }
  return rows.filter((r) => {
    const e = last.get(r.id);
    return !(e?.type === 'MemorySkipped' && Number(e.data?.triggerVersion) >= r.changedVersion);
  });
}
