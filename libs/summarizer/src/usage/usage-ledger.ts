import { Database, sql } from '@app/database';
import { EntityManager } from 'typeorm';
import { LedgerEntry, LedgerOutcome } from './ledger-entry';
import { UsageGroup } from './usage-report';

const COLUMNS =
  'campaign_id, scope, subject_id, attempt, model, outcome, input_tokens, output_tokens, cache_read_tokens, ' +
  'cache_write_tokens, latency_ms, requests, trigger_version, memory_version, memory_id, called_at';
const ROW = `(${COLUMNS.split(',')
  .map(() => '?')
  .join(', ')})`;

const values = (e: LedgerEntry) => [
  e.campaignId,
  e.scope,
  e.subjectId,
  e.attempt,
  e.model,
  e.outcome,
  e.inputTokens,
  e.outputTokens,
  e.cacheReadTokens,
  e.cacheWriteTokens,
  e.latencyMs,
  e.requests,
  e.triggerVersion,
  e.memoryVersion,
  e.memoryId,
  e.calledAt,
];

type Row = Record<string, string | number | null>;
const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');
const num = (v: unknown) => Number(v ?? 0);

/** The usage ledger (DESIGN §12), table `model_calls`: this lib owns it; the memory worker writes through `record`. */
export class UsageLedger {
  constructor(private readonly db: Database) {}

  /** Every call of a deleted campaign (DESIGN §10), in the delete's transaction (`ix` on `campaign_id`). */
  async removeCampaign(m: EntityManager, campaignId: string): Promise<void> {
    await sql(m, 'DELETE FROM model_calls WHERE campaign_id = ?', [campaignId]);
  }

  /** Inside the transaction that commits the calls' outcome, so a call and what it produced commit together. */
  async record(m: EntityManager, entries: LedgerEntry[]): Promise<void> {
    // 16 columns a row: 50 rows stay under SQLite's and PostgreSQL's parameter limits.
    for (let i = 0; i < entries.length; i += 50) {
      const batch = entries.slice(i, i + 50);
      await sql(
        m,
        `INSERT INTO model_calls (${COLUMNS}) VALUES ${batch.map(() => ROW).join(', ')}`,
        batch.flatMap(values),
      );
    }
  }

  /**
   * Write-ahead of one finished attempt, before its outcome commits, so a crash cannot lose a call that was paid for:
   * `settle` replaces it in the outcome's transaction; after a crash `sweep` marks it abandoned. Returns its row id.
   */
  async pending(entry: LedgerEntry): Promise<number> {
    return this.db.transaction(async (m) => {
      const { rows } = await sql<{ id: number | string }>(
        m,
        `INSERT INTO model_calls (${COLUMNS}) VALUES ${ROW} RETURNING id`,
        values({ ...entry, outcome: 'pending' }),
      );
      return Number(rows[0].id);
    });
  }

  /** In the outcome's transaction: the written-ahead rows give way to the final ones. */
  async settle(m: EntityManager, pendingIds: number[], entries: LedgerEntry[]): Promise<void> {
    for (let i = 0; i < pendingIds.length; i += 500) {
      const ids = pendingIds.slice(i, i + 500);
      await sql(m, `DELETE FROM model_calls WHERE outcome = 'pending' AND id IN (${placeholders(ids.length)})`, ids);
    }
    await this.record(m, entries);
  }

  /**
   * Calls whose outcome will never commit (shutdown, a lost lease), in a transaction of their own: rows written ahead
   * are marked in place (a new owner may have swept them already: no second row), the others inserted.
   */
  async abandon(entries: LedgerEntry[], writtenIds: number[] = []): Promise<void> {
    if (!entries.length && !writtenIds.length) return;
    await this.db.transaction(async (m) => {
      for (let i = 0; i < writtenIds.length; i += 500) {
        const ids = writtenIds.slice(i, i + 500);
        await sql(
          m,
          `UPDATE model_calls SET outcome = 'abandoned' WHERE outcome = 'pending' AND id IN ` +
            `(${placeholders(ids.length)})`,
          ids,
        );
      }
      await this.record(m, entries);
    });
  }

  /** Rows a crashed owner wrote ahead and never settled: abandoned. Only the campaign's owner may call it. */
  async sweep(campaignId: string): Promise<number> {
    const found = await this.db.read(
      async (m) =>
        (
          await sql(m, "SELECT 1 AS x FROM model_calls WHERE campaign_id = ? AND outcome = 'pending' LIMIT 1", [
            campaignId,
          ])
        ).rows.length,
    );
    if (!found) return 0;
    return this.db.transaction(
      async (m) =>
        (
          await sql(m, "UPDATE model_calls SET outcome = 'abandoned' WHERE campaign_id = ? AND outcome = 'pending'", [
            campaignId,
          ])
        ).changes,
    );
  }

  /** Sums per scope, model and outcome. */
  async groups(campaignId: string): Promise<UsageGroup[]> {
    const rows = await this.db.read(
      async (m) =>
        (
          await sql<Row>(
            m,
            `SELECT scope, model, outcome, COUNT(*) AS calls, SUM(requests) AS requests, SUM(input_tokens) AS input,
             SUM(output_tokens) AS output,
             SUM(cache_read_tokens) AS cache_read, SUM(cache_write_tokens) AS cache_write, SUM(latency_ms) AS latency
           FROM model_calls WHERE campaign_id = ? AND outcome <> 'pending'
           GROUP BY scope, model, outcome ORDER BY scope, model, outcome`,
            [campaignId],
          )
        ).rows,
    );
    return rows.map((r) => ({
      scope: String(r.scope),
      model: String(r.model),
      outcome: String(r.outcome),
      calls: num(r.calls),
      requests: num(r.requests),
      inputTokens: num(r.input),
      outputTokens: num(r.output),
      cacheReadTokens: num(r.cache_read),
      cacheWriteTokens: num(r.cache_write),
      latencyMs: num(r.latency),
    }));
  }

  /**
   * DESIGN §15 export: the campaign's settled calls in the order they were recorded, a page at a time after row
   * `afterId` (pending write-aheads are in flight, not yet a call); `untilTrigger` keeps those of triggers up to that
   * version.
   */
  async page(
    campaignId: string,
    o: { afterId: number; limit: number; untilTrigger?: number },
  ): Promise<{ id: number; entry: LedgerEntry }[]> {
    const until = o.untilTrigger === undefined ? '' : ' AND trigger_version <= ?';
    const text =
      `SELECT id, ${COLUMNS} FROM model_calls WHERE campaign_id = ? AND id > ? AND outcome <> 'pending'${until} ` +
      'ORDER BY id LIMIT ?';
    const params = [campaignId, o.afterId, ...(o.untilTrigger === undefined ? [] : [o.untilTrigger]), o.limit];
    const rows = await this.db.read(async (m) => (await sql<Row>(m, text, params)).rows);
    return rows.map((r) => ({ id: Number(r.id), entry: entryOf(r) }));
  }

  /** Every call that went into one memory (failed attempts included), oldest first. */
  async callsOfMemory(campaignId: string, memoryId: string): Promise<LedgerEntry[]> {
    return this.db.read(async (m) =>
      (
        await sql<Row>(m, `SELECT ${COLUMNS} FROM model_calls WHERE campaign_id = ? AND memory_id = ? ORDER BY id`, [
          campaignId,
          memoryId,
        ])
      ).rows.map(entryOf),
    );
  }
}

function entryOf(r: Row): LedgerEntry {
  const optional = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    campaignId: String(r.campaign_id),
    scope: String(r.scope),
    subjectId: String(r.subject_id),
    attempt: num(r.attempt),
    model: String(r.model),
    outcome: String(r.outcome) as LedgerOutcome,
    inputTokens: num(r.input_tokens),
    outputTokens: num(r.output_tokens),
    cacheReadTokens: num(r.cache_read_tokens),
    cacheWriteTokens: num(r.cache_write_tokens),
    latencyMs: num(r.latency_ms),
    requests: num(r.requests),
    triggerVersion: num(r.trigger_version),
    memoryVersion: optional(r.memory_version),
    memoryId: r.memory_id === null || r.memory_id === undefined ? null : String(r.memory_id),
    calledAt: String(r.called_at),
  };
}
