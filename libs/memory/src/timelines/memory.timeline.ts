import { Horizon, TimelineParticipant, TimelineService } from '@app/campaign';
import { clearAbove, copyCampaignRows, deleteCampaignRows, nullAbove, sql, tableColumns } from '@app/database';
import { EventStore, memoryStream } from '@app/event-store';
import { UsageLedger } from '@app/summarizer';
import { EntityManager } from 'typeorm';
import { CheckpointStore } from '../checkpoint/checkpoint.store';
import { PUBLIC_SUMMARY_KEY, PUBLIC_SUMMARY_SUBJECT } from '../memory-events';
import { MemoryWorker } from '../memory.worker';

/** Marks a memory-side row gets after it was written: undone by a rewind, not copied by an earlier fork. */
const LATER_MARKS: Record<string, string[]> = {
  glossary_terms: ['withheld_version', 'withdrawn_version'],
  rolling_summaries: ['withheld_version'],
};

/**
 * Memory's rows in fork, rewind and delete (DESIGN §10): memories (prefix of the memory stream, M), their
 * witnesses, history, glossary terms, Previously, cursors and the checkpoint — set-based, no model call: what the
 * parent's worker recorded is copied, the fork's worker does only what the parent's had not.
 */
export class MemoryTimeline implements TimelineParticipant {
  readonly name = 'memory';

  constructor(
    private readonly store: EventStore,
    private readonly worker: MemoryWorker,
    private readonly ledger: UsageLedger,
  ) {}

  /** Registers with the campaign's TimelineService (called at onModuleInit). */
  attach(timelines: TimelineService): void {
    timelines.register(this);
    timelines.useMemoryVersionAt((m, id, version) => this.pointAt(m, id, version));
    timelines.onChange((c) => {
      // The fence is what makes a stale claim commit nothing; this only spares its model call.
      if (c.kind === 'rewound') this.worker.abandon(c.campaignId);
      if (c.kind === 'deleted') this.worker.forget(c.campaignId);
    });
  }

  /** X = min(V, P) and the memory stream's version M at X (its events are ordered by trigger version). */
  async pointAt(m: EntityManager, campaignId: string, version: number) {
    return memoryCut(m, this.store, campaignId, version);
  }

  async copy(m: EntityManager, from: string, to: string, at: Horizon): Promise<void> {
    const upTo = { where: '"memory_version" <= ?', params: [at.memoryVersion] };
    await copyCampaignRows(m, {
      table: 'memory_witnesses',
      from,
      to,
      where: '"memory_id" IN (SELECT "id" FROM "memories" WHERE "campaign_id" = ? AND "memory_version" <= ?)',
      params: [from, at.memoryVersion],
    });
    await copyCampaignRows(m, { table: 'memories', from, to, ...upTo });
    await copyCampaignRows(m, {
      table: 'memory_history',
      from,
      to,
      where: '"valid_from" <= ? AND ("memory_version" IS NULL OR "memory_version" <= ?)',
      params: [at.version, at.memoryVersion],
    });
    await restoreFromHistory(m, to, at.version);
    for (const [table, marks] of Object.entries(LATER_MARKS)) {
      const existing = marks.filter((c) => tableColumns(m, table)?.includes(c));
      const set = Object.fromEntries(existing.map((c) => [c, nullAbove(c)]));
      const setParams = Object.fromEntries(existing.map((c) => [c, [at.version]]));
      await copyCampaignRows(m, { table, from, to, ...upTo, set, setParams });
    }
    await this.recomputeCursors(m, to);
    const { processedVersion } = await this.pointAt(m, from, at.version);
    await CheckpointStore.copy(m, to, processedVersion, at.memoryVersion);
  }

  async rewind(m: EntityManager, id: string, to: Horizon, timeline: number): Promise<void> {
    const later = [to.memoryVersion];
    await deleteCampaignRows(
      m,
      'memory_witnesses',
      id,
      '"memory_id" IN (SELECT "id" FROM "memories" WHERE "campaign_id" = ? AND "memory_version" > ?)',
      [id, to.memoryVersion],
    );
    await deleteCampaignRows(m, 'memories', id, '"memory_version" > ?', later);
    await deleteCampaignRows(
      m,
      'memory_history',
      id,
      '"valid_from" > ? OR ("memory_version" IS NOT NULL AND "memory_version" > ?)',
      [to.version, to.memoryVersion],
    );
    await restoreFromHistory(m, id, to.version);
    for (const [table, marks] of Object.entries(LATER_MARKS)) {
      await deleteCampaignRows(m, table, id, '"memory_version" > ?', later);
      await clearAbove(m, table, id, marks, to.version);
    }
    await this.recomputeCursors(m, id);
    const { processedVersion } = await this.pointAt(m, id, to.version);
    await CheckpointStore.rewind(m, id, processedVersion, to.memoryVersion, timeline);
  }

  async remove(m: EntityManager, id: string): Promise<void> {
    const tables = [
      'memory_witnesses',
      'memory_history',
      'glossary_terms',
      'rolling_summaries',
      'memory_cursors',
      'memories',
    ];
    for (const table of tables) await deleteCampaignRows(m, table, id);
    await CheckpointStore.remove(m, id);
    await this.ledger.removeCampaign(m, id);
  }

  /**
   * Cursors of the kept rows: a scope's is the cursor of its newest memory, the summary's the last message its
   * newest Previously covered (cursors only move forward, so MAX is the newest).
   */
  private async recomputeCursors(m: EntityManager, id: string): Promise<void> {
    await sql(m, 'DELETE FROM memory_cursors WHERE campaign_id = ?', [id]);
    await sql(
      m,
      'INSERT INTO memory_cursors (campaign_id, scope, subject_id, value) SELECT campaign_id, scope, subject_id, ' +
        'MAX("cursor") FROM memories WHERE campaign_id = ? GROUP BY campaign_id, scope, subject_id',
      [id],
    );
    // rolling_summaries keys: '*' (dm), PUBLIC_SUMMARY_KEY, `player:<id>`; cursor subjects '*', '*public', `<id>`.
    await sql(
      m,
      `INSERT INTO memory_cursors (campaign_id, scope, subject_id, value) SELECT campaign_id, 'summary', ` +
        `CASE viewer_key WHEN '*' THEN '*' WHEN ? THEN ? ELSE substr(viewer_key, 8) END, ` +
        'MAX(through_message_index) FROM rolling_summaries WHERE campaign_id = ? GROUP BY campaign_id, viewer_key',
      [PUBLIC_SUMMARY_KEY, PUBLIC_SUMMARY_SUBJECT, id],
    );
  }
}

/**
 * The memory side of a cut at game version V (a fork, a rewind, an export — DESIGN §10, §15): X = min(V, P), how far
 * the worker had got, and M, the memory stream's version at X (the newest event whose trigger is at most X).
 */
export async function memoryCut(
  m: EntityManager,
  store: EventStore,
  campaignId: string,
  version: number,
): Promise<{ processedVersion: number; memoryVersion: number }> {
  const at = await CheckpointStore.read(m, campaignId);
  const processedVersion = Math.min(version, at.processedVersion);
  if (processedVersion === at.processedVersion) return { processedVersion, memoryVersion: at.memoryVersion };
  return {
    processedVersion,
    memoryVersion: await store.versionAtTrigger(memoryStream(campaignId), processedVersion, m),
  };
}

/**
 * Rows whose wording or status changed after V take them from their history as of V (the newest entry with
 * `valid_from <= V`): a correction or revision after the cut is not the fork's, and a rewind undoes it.
 */
async function restoreFromHistory(m: EntityManager, campaignId: string, version: number): Promise<void> {
  if (!tableColumns(m, 'memory_history') || !tableColumns(m, 'memories')?.includes('changed_version')) return;
  const pick = (col: string) =>
    `(SELECT ${col} FROM memory_history h WHERE h.campaign_id = memories.campaign_id AND h.memory_id = memories.id ` +
    `AND h.valid_from <= ? ORDER BY h.valid_from DESC, h.seq DESC LIMIT 1)`;
  const cols: [string, string][] = [
    ['summary', 'h.summary'],
    ['status', 'h.status'],
    ['revision', 'h.revision'],
    ['origin', 'h.origin'],
    ['locked', "h.origin = 'dm'"],
    ['changed_version', 'h.valid_from'],
    ['input_indexes', 'h.input_indexes'],
  ];
  const text =
    `UPDATE memories SET ${cols.map(([c, expr]) => `"${c}" = ${pick(expr)}`).join(', ')} ` +
    'WHERE campaign_id = ? AND changed_version > ?';
  await sql(m, text, [...cols.map(() => version), campaignId, version]);
}
