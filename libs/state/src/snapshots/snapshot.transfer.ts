import { Database, sql } from '@app/database';
import { EntityManager } from 'typeorm';
import { AccountRecord, GameStateSnapshotRecord, SnapshotToolRecord } from './game-state.entities';
import { rulesIn, toolRecord } from './snapshot.store';
import { ToolRule } from './staleness';

/** One stored snapshot as an export line carries it (DESIGN §15): content as JSON, not as its stored text. */
export interface SnapshotRow {
  account: string;
  tool: string;
  content: unknown;
  tick: number | null;
  capturedAt: string;
  stale: boolean;
  fieldTicks: Record<string, number | null>;
}

export interface AccountRow {
  account: string;
  agentId: string | null;
  createdAt: string;
}

const num = (v: number | string | null): number | null => (v === null || v === undefined ? null : Number(v));

/**
 * The state lib's rows in an export and an import (DESIGN §15): snapshots and tool rules are a cache, not history, so
 * they travel as rows; account rows too, since a snapshot's first write creates its account without an event.
 */
export class SnapshotTransfer {
  constructor(private readonly db: Database) {}

  /** Snapshots after (account, tool), in key order; a few at a time (a snapshot may hold megabytes). */
  async snapshotsPage(campaignId: string, after: [string, string] | null, limit: number): Promise<SnapshotRow[]> {
    const rows = await this.db.read((m) =>
      m
        .getRepository(GameStateSnapshotRecord)
        .createQueryBuilder('s')
        .where('s.campaignId = :campaignId', { campaignId })
        .andWhere(after ? '(s.accountId > :a OR (s.accountId = :a AND s.tool > :t))' : '1 = 1', {
          a: after?.[0],
          t: after?.[1],
        })
        .orderBy('s.accountId', 'ASC')
        .addOrderBy('s.tool', 'ASC')
        .limit(limit)
        .getMany(),
    );
    return rows.map((r) => ({
      account: r.accountId,
      tool: r.tool,
      content: JSON.parse(r.content) as unknown,
      tick: num(r.tick),
      capturedAt: r.capturedAt,
      stale: Number(r.stale) === 1,
      fieldTicks: JSON.parse(r.fieldTicks) as Record<string, number | null>,
    }));
  }

  async tools(campaignId: string): Promise<ToolRule[]> {
    return Object.values(await this.db.read((m) => rulesIn(m, campaignId)));
  }

  async accounts(campaignId: string): Promise<AccountRow[]> {
    const rows = await this.db.read((m) =>
      m.getRepository(AccountRecord).find({ where: { campaignId }, order: { accountId: 'ASC' } }),
    );
    return rows.map((r) => ({ account: r.accountId, agentId: r.agentId, createdAt: r.createdAt }));
  }

  /** In the import's transaction, after the events were replayed (they made the accounts that logged in). */
  async restoreSnapshot(m: EntityManager, campaignId: string, s: SnapshotRow): Promise<void> {
    const content = JSON.stringify(s.content);
    await m.getRepository(GameStateSnapshotRecord).insert({
      campaignId,
      accountId: s.account,
      tool: s.tool,
      content,
      bytes: Buffer.byteLength(content),
      tick: s.tick,
      capturedAt: s.capturedAt,
      stale: s.stale ? 1 : 0,
      fieldTicks: JSON.stringify(s.fieldTicks),
    });
  }

  async restoreTool(m: EntityManager, campaignId: string, rule: ToolRule): Promise<void> {
    await m.getRepository(SnapshotToolRecord).insert(toolRecord(campaignId, rule));
  }

  /** The account row as exported: the replayed one (a login) is overwritten with the same values, else inserted. */
  async restoreAccount(m: EntityManager, campaignId: string, a: AccountRow): Promise<void> {
    await sql(m, 'DELETE FROM "accounts" WHERE "campaign_id" = ? AND "account_id" = ?', [campaignId, a.account]);
    await sql(m, 'INSERT INTO "accounts" ("campaign_id", "account_id", "agent_id", "created_at") VALUES (?, ?, ?, ?)', [
      campaignId,
      a.account,
      a.agentId,
      a.createdAt,
    ]);
  }
}
