import { Database, sql, tableColumns } from '@app/database';
import { EntityManager } from 'typeorm';

/** How far the memory worker got with a campaign (0 and 0 before its first commit). */
export interface Checkpoint {
  /** Last game version the memory worker finished. */
  processedVersion: number;
  /** Memory stream version. */
  memoryVersion: number;
  /** §10: the campaign's timeline the checkpoint belongs to; a rewind moves it on, fencing older claims out. */
  timeline: number;
}

/** A checkpoint move: from where this claim left it to `to` (and the memory stream's version, when given). */
export interface CheckpointMove {
  from: number;
  to: number;
  memoryVersion?: number;
  /** The timeline the claim read at its start: a rewind since then makes the move fail. */
  timeline: number;
}

/** Worker lag over campaigns behind: how many, events in all, the most of one campaign. */
export interface WorkerLag {
  campaigns: number;
  events: number;
  max: number;
}

type Row = {
  campaign_id: string;
  processed_version: number | string;
  memory_version: number | string;
  timeline: number | string;
};

const ZERO: Checkpoint = { processedVersion: 0, memoryVersion: 0, timeline: 1 };
const toCheckpoint = (r: Row): Checkpoint => ({
  processedVersion: Number(r.processed_version),
  memoryVersion: Number(r.memory_version),
  timeline: Number(r.timeline),
});
const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** The `memory_checkpoints` table: memory's own, the only writer of it is this class. */
export class CheckpointStore {
  constructor(private readonly db: Database) {}

  /** `tx`: read inside that transaction (a fork's answer is built in the fork's own). */
  async get(campaignId: string, tx?: EntityManager): Promise<Checkpoint> {
    return (await this.getMany([campaignId], tx)).get(campaignId) ?? ZERO;
  }

  /** Checkpoints of the campaigns that have one (a missing one is ZERO). */
  async getMany(campaignIds: string[], tx?: EntityManager): Promise<Map<string, Checkpoint>> {
    if (campaignIds.length === 0) return new Map();
    const text =
      `SELECT campaign_id, processed_version, memory_version, timeline FROM memory_checkpoints WHERE ` +
      `campaign_id IN (${placeholders(campaignIds.length)})`;
    const { rows } = tx
      ? await sql<Row>(tx, text, campaignIds)
      : await this.db.read((m) => sql<Row>(m, text, campaignIds));
    return new Map(rows.map((r) => [r.campaign_id, toCheckpoint(r)]));
  }

  /**
   * Campaigns behind, given every campaign's game version (CampaignReader.versions()): id → events not yet
   * processed. Read the versions first: a checkpoint read later can only be further on, never past them.
   */
  async pending(versions: Map<string, number>): Promise<Map<string, number>> {
    const { rows } = await this.db.read((m) =>
      sql<Row>(m, 'SELECT campaign_id, processed_version, memory_version, timeline FROM memory_checkpoints'),
    );
    const processed = new Map(rows.map((r) => [r.campaign_id, Number(r.processed_version)]));
    const behind = new Map<string, number>();
    for (const [id, version] of versions) {
      const lag = version - (processed.get(id) ?? 0);
      if (lag > 0) behind.set(id, lag);
    }
    return behind;
  }

  /** `pending` summed up (metrics, readiness). */
  async lag(versions: Map<string, number>): Promise<WorkerLag> {
    const behind = [...(await this.pending(versions)).values()];
    return {
      campaigns: behind.length,
      events: behind.reduce((a, b) => a + b, 0),
      max: behind.reduce((a, b) => Math.max(a, b), 0),
    };
  }

  /**
   * The campaign's checkpoint row, in the transaction that creates the campaign (CheckpointProjection): a move
   * never creates it, so a worker still in flight on a deleted campaign cannot bring it back (§10).
   */
  static async create(m: EntityManager, campaignId: string): Promise<void> {
    await sql(m, 'INSERT INTO memory_checkpoints (campaign_id) VALUES (?) ON CONFLICT (campaign_id) DO NOTHING', [
      campaignId,
    ]);
  }

  /**
   * In the worker's commit transaction `m`: moves the checkpoint from `from` to `to` (and the memory
   * version, when given), in the claim's timeline. False when the checkpoint was elsewhere, in another
   * timeline (a rewind), or gone (a delete).
   */
  static async move(m: EntityManager, campaignId: string, move: CheckpointMove): Promise<boolean> {
    const memory = move.memoryVersion === undefined ? '' : ', memory_version = ?';
    const text =
      `UPDATE memory_checkpoints SET processed_version = ?${memory} WHERE campaign_id = ? AND ` +
      `processed_version = ? AND timeline = ? RETURNING campaign_id`;
    const where = [campaignId, move.from, move.timeline];
    const params = move.memoryVersion === undefined ? [move.to, ...where] : [move.to, move.memoryVersion, ...where];
    return (await sql(m, text, params)).rows.length > 0;
  }

  /** The memory stream's version after events appended outside the worker (a command, the rebuild). */
  static async setMemoryVersion(m: EntityManager, campaignId: string, version: number): Promise<void> {
    const text =
      'INSERT INTO memory_checkpoints (campaign_id, memory_version) VALUES (?, ?) ' +
      'ON CONFLICT (campaign_id) DO UPDATE SET memory_version = excluded.memory_version';
    await sql(m, text, [campaignId, version]);
  }

  /**
   * DESIGN §10 fork: the new campaign's checkpoint starts where the parent's worker stood at the fork point (game
   * version X = min(V, P), memory version M), in timeline 1; its own worker does the rest.
   */
  static async copy(m: EntityManager, to: string, processedVersion: number, memoryVersion: number): Promise<void> {
    const timeline = tableColumns(m, 'memory_checkpoints')?.includes('timeline');
    await sql(
      m,
      'INSERT INTO memory_checkpoints (campaign_id, processed_version, ' +
        `memory_version${timeline ? ', timeline' : ''}) VALUES (?, ?, ?${timeline ? ', 1' : ''})`,
      [to, processedVersion, memoryVersion],
    );
  }

  /**
   * DESIGN §10 rewind: back to X and M, in the new timeline — a claim of the old timeline fails its fence (its
   * `move` names the old processed version and timeline) and commits nothing.
   */
  static async rewind(
    m: EntityManager,
    campaignId: string,
    processedVersion: number,
    memoryVersion: number,
    timeline: number,
  ): Promise<void> {
    const withTimeline = tableColumns(m, 'memory_checkpoints')?.includes('timeline');
    const text =
      'INSERT INTO memory_checkpoints (campaign_id, processed_version, ' +
      `memory_version${withTimeline ? ', timeline' : ''}) VALUES (?, ?, ?${withTimeline ? ', ?' : ''}) ` +
      'ON CONFLICT (campaign_id) DO UPDATE SET ' +
      `processed_version = excluded.processed_version, memory_version = excluded.memory_version` +
      (withTimeline ? ', timeline = excluded.timeline' : '');
    await sql(m, text, [campaignId, processedVersion, memoryVersion, ...(withTimeline ? [timeline] : [])]);
  }

  static async remove(m: EntityManager, campaignId: string): Promise<void> {
    await sql(m, 'DELETE FROM memory_checkpoints WHERE campaign_id = ?', [campaignId]);
  }

  /** The checkpoint inside a transaction (a fork's or rewind's cut). */
  static async read(m: EntityManager, campaignId: string): Promise<Checkpoint> {
    const text =
      'SELECT campaign_id, processed_version, memory_version, timeline FROM memory_checkpoints WHERE campaign_id = ?';
    const row = (await sql<Row>(m, text, [campaignId])).rows[0];
    return row ? toCheckpoint(row) : ZERO;
  }
}
