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

/** One campaign's withheld rows: those a failed revision explains (with its reason), and the lost ones. */
export interface WithheldVerdict {
  explained: { row: WithheldRow; reason: string }[];
  lost: WithheldRow[];
}

/**
 * A row is explained when the campaign's last revision outcome for the memory is a `MemorySkipped` at or after the
 * version it is withheld from; any other row left withheld once the worker caught up is a lost revision.
 */
export function judgeWithheld(rows: WithheldRow[], memoryStream: MemoryStreamEvent[]): WithheldVerdict {
  const last = new Map<string, MemoryStreamEvent>();
  for (const e of memoryStream) {
    const id = revisedMemory(e);
    if (id !== null) last.set(id, e);
  }
  const verdict: WithheldVerdict = { explained: [], lost: [] };
  for (const row of rows) {
    const e = last.get(row.id);
    if (e?.type === 'MemorySkipped' && Number(e.data?.triggerVersion) >= row.changedVersion)
      verdict.explained.push({ row, reason: String(e.data?.reason ?? '') });
    else verdict.lost.push(row);
  }
  return verdict;
}
