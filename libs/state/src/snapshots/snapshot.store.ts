import { Clock, conflict, DomainError, invalid, notFound } from '@app/common';
import { Database, isUniqueViolation } from '@app/database';
import { EntityManager, FindOneOptions } from 'typeorm';
import { countKeys, deepMerge, isJsonObject, MAX_MERGE_KEYS, updateFieldTicks } from './deep-merge';
import { AccountRecord, GameStateSnapshotRecord, SnapshotToolRecord } from './game-state.entities';
import { currentTick, isStale, SnapshotView } from './game-state.renderer';
import { toolsMarkedBy, ToolRule } from './staleness';

export interface SnapshotWrite {
  content: unknown;
  tick?: number;
  capturedAt?: string;
  merge?: boolean;
}

export interface SnapshotSummary {
  tool: string;
  tick: number | null;
  capturedAt: string;
  bytes: number;
  stale: boolean;
}

export interface SnapshotDetail {
  tool: string;
  tick: number | null;
  capturedAt: string;
  stale: boolean;
  fieldTicks: Record<string, number | null>;
  content: unknown;
}

export interface AccountView {
  account: string;
  agentId: string | null;
}

/** Merged content may grow past one request body, but not without bound. */
export const MAX_SNAPSHOT_BYTES = 4 * 1024 * 1024;

const num = (v: number | string | null): number | null => (v === null || v === undefined ? null : Number(v));

/** The game-state cache (DESIGN §5): snapshots per account and tool, tool rules, account rows. */
export class SnapshotStore {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly tickSeconds: number,
  ) {}

  /** Upserts one tool's snapshot; refuses a tick older than the stored one; clears the stale flag. */
  async put(
    campaignId: string,
    accountId: string,
    tool: string,
    w: SnapshotWrite,
  ): Promise<{ tool: string; tick: number | null; capturedAt: string; bytes: number }> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.db.transaction((m) => this.putOnce(m, campaignId, accountId, tool, w));
      } catch (err) {
        // Two first writes of one tool on PostgreSQL: the loser retries as an update.
        if (attempt > 0 || !isUniqueViolation(err)) throw err;
      }
    }
  }

  private async putOnce(m: EntityManager, campaignId: string, accountId: string, tool: string, w: SnapshotWrite) {
    const repo = m.getRepository(GameStateSnapshotRecord);
    const prev = await repo.findOne({ where: { campaignId, accountId, tool }, ...this.forUpdate() });
    const prevTick = prev ? num(prev.tick) : null;
    const tick = w.tick ?? null;
    if (tick !== null && prevTick !== null && tick < prevTick) {
      throw conflict(
        'SNAPSHOT_OUT_OF_ORDER',
        `${tool} of account ${accountId} is stored at tick ${prevTick}; tick ${tick} is older`,
      );
    }
    const { content, fieldTicks } = w.merge
      ? mergeInto(prev, tool, w.content, tick)
      : { content: w.content, fieldTicks: {} };
    const text = JSON.stringify(content);
    const bytes = Buffer.byteLength(text);
    if (bytes > MAX_SNAPSHOT_BYTES)
      throw new DomainError(
        'too_large',
        'SNAPSHOT_TOO_LARGE',
        `${tool} would be ${bytes} bytes; the limit is ${MAX_SNAPSHOT_BYTES}`,
      );
    const capturedAt = new Date(w.capturedAt ?? this.clock.now()).toISOString();
    const row = {
      campaignId,
      accountId,
      tool,
      content: text,
      bytes,
      tick,
      capturedAt,
      stale: 0,
      fieldTicks: JSON.stringify(fieldTicks),
    };
    if (prev) await repo.update({ campaignId, accountId, tool }, row);
    else await repo.insert(row);
    await m
      .createQueryBuilder()
      .insert()
      .into(AccountRecord)
      .values({ campaignId, accountId, agentId: null, createdAt: capturedAt })
      .orIgnore()
      .updateEntity(false)
      .execute();
    return { tool, tick, capturedAt, bytes };
  }

  /** The account's snapshots without their content, staleness judged now. */
  async list(campaignId: string, accountId: string, tick: number | null = null): Promise<SnapshotSummary[]> {
    return this.db.read(async (m) => {
      const rows = await m
        .getRepository(GameStateSnapshotRecord)
        .createQueryBuilder('s')
        .select(['s.tool', 's.tick', 's.capturedAt', 's.bytes', 's.stale'])
        .where('s.campaignId = :campaignId AND s.accountId = :accountId', { campaignId, accountId })
        .orderBy('s.tool', 'ASC')
        .getMany();
      const rules = await rulesIn(m, campaignId);
      const views = rows.map((r) => ({
        tool: r.tool,
        tick: num(r.tick),
        capturedAt: r.capturedAt,
        stale: r.stale === 1,
        content: null,
        bytes: r.bytes,
      }));
      const now = this.clock.now();
      const current = currentTick(views, tick);
      return views.map((v) => ({
        tool: v.tool,
        tick: v.tick,
        capturedAt: v.capturedAt,
        bytes: v.bytes,
        stale: isStale(v, rules[v.tool], current, now, this.tickSeconds),
      }));
    });
  }

  async get(campaignId: string, accountId: string, tool: string): Promise<SnapshotDetail> {
    const found = await this.db.read(async (m) => {
      const row = await m.getRepository(GameStateSnapshotRecord).findOneBy({ campaignId, accountId, tool });
      if (!row) return null;
      const { max } = (await m
        .getRepository(GameStateSnapshotRecord)
        .createQueryBuilder('s')
        .select('MAX(s.tick)', 'max')
        .where('s.campaignId = :campaignId AND s.accountId = :accountId', { campaignId, accountId })
        .getRawOne<{ max: number | string | null }>())!;
      return { row, max: num(max), rules: await rulesIn(m, campaignId) };
    });
    if (!found) throw notFound('SNAPSHOT_NOT_FOUND', `account ${accountId} has no ${tool} snapshot`);
    const { row, max, rules } = found;
    const view = {
      tool,
      tick: num(row.tick),
      capturedAt: row.capturedAt,
      stale: row.stale === 1,
      content: JSON.parse(row.content) as unknown,
    };
    const stale = isStale(view, rules[tool], max, this.clock.now(), this.tickSeconds);
    return {
      tool,
      tick: view.tick,
      capturedAt: view.capturedAt,
      stale,
      fieldTicks: JSON.parse(row.fieldTicks),
      content: view.content,
    };
  }

  /** Everything the Current Game State section needs for one account. */
  async views(campaignId: string, accountId: string): Promise<SnapshotView[]> {
    return this.db.read(async (m) => {
      const rows = await m
        .getRepository(GameStateSnapshotRecord)
        .find({ where: { campaignId, accountId }, order: { tool: 'ASC' } });
      return rows.map((r) => ({
        tool: r.tool,
        tick: num(r.tick),
        capturedAt: r.capturedAt,
        stale: r.stale === 1,
        content: JSON.parse(r.content) as unknown,
      }));
    });
  }

  /** Marks the account's tools that `action` invalidates as stale; returns them. */
  async act(campaignId: string, accountId: string, action: string, tick: number | null): Promise<string[]> {
    return this.db.transaction(async (m) => {
      const repo = m.getRepository(GameStateSnapshotRecord);
      const rows = await repo
        .createQueryBuilder('s')
        .select(['s.tool', 's.tick'])
        .where('s.campaignId = :campaignId AND s.accountId = :accountId', { campaignId, accountId })
        .getMany();
      const marked = toolsMarkedBy(
        action,
        tick,
        rows.map((r) => ({ tool: r.tool, tick: num(r.tick) })),
        await rulesIn(m, campaignId),
      );
      if (marked.length) {
        await repo
          .createQueryBuilder()
          .update()
          .set({ stale: 1 })
          .where('campaignId = :campaignId AND accountId = :accountId AND tool IN (:...marked)', {
            campaignId,
            accountId,
            marked,
          })
          .execute();
      }
      return marked;
    });
  }

  /** Sets (replaces) a tool's rule for the campaign. */
  async putRule(campaignId: string, rule: ToolRule): Promise<ToolRule> {
    await this.db.transaction((m) =>
      m.getRepository(SnapshotToolRecord).upsert(toolRecord(campaignId, rule), ['campaignId', 'tool']),
    );
    return rule;
  }

  async rules(campaignId: string): Promise<Record<string, ToolRule>> {
    return this.db.read((m) => rulesIn(m, campaignId));
  }

  /** Accounts known to the campaign (by login or by a snapshot), with their bound agent. */
  async accounts(campaignId: string): Promise<AccountView[]> {
    const rows = await this.db.read((m) =>
      m.getRepository(AccountRecord).find({ where: { campaignId }, order: { accountId: 'ASC' } }),
    );
    return rows.map((r) => ({ account: r.accountId, agentId: r.agentId }));
  }

  /**
   * The account a context is for: `account=` when it is logged in or holds snapshots, else the
   * account bound to `agentId=`; null = not logged in.
   */
  async resolveAccount(campaignId: string, o: { account?: string; agentId?: string }): Promise<AccountView | null> {
    return this.db.read(async (m) => {
      const accounts = m.getRepository(AccountRecord);
      if (o.account !== undefined) {
        const row = await accounts.findOneBy({ campaignId, accountId: o.account });
        if (!row) return null;
        if (
          row.agentId === null &&
          !(await m.getRepository(GameStateSnapshotRecord).existsBy({ campaignId, accountId: o.account }))
        )
          return null;
        return { account: row.accountId, agentId: row.agentId };
      }
      if (o.agentId !== undefined) {
        const row = await accounts.findOneBy({ campaignId, agentId: o.agentId });
        return row ? { account: row.accountId, agentId: row.agentId } : null;
      }
      return null;
    });
  }

  /** §8: whether the campaign ever had a game account (logged in, or holding snapshots). */
  async hasAccounts(campaignId: string): Promise<boolean> {
    return this.db.read(
      async (m) =>
        (await m.getRepository(AccountRecord).existsBy({ campaignId })) ||
        (await m.getRepository(GameStateSnapshotRecord).existsBy({ campaignId })),
    );
  }

  private forUpdate(): Pick<FindOneOptions, 'lock'> {
    return this.db.dialect === 'postgres' ? { lock: { mode: 'pessimistic_write' } } : {};
  }
}

/** A merge write: the stored snapshot with `patch` merged in, and the tick of each field it changed. */
function mergeInto(prev: GameStateSnapshotRecord | null, tool: string, patch: unknown, tick: number | null) {
  if (!isJsonObject(patch)) throw invalid('MERGE_CONTENT_NOT_OBJECT', 'merge needs content that is a JSON object');
  if (countKeys(patch) > MAX_MERGE_KEYS)
    throw invalid(
      'MERGE_TOO_LARGE',
      `a merge may carry at most ${MAX_MERGE_KEYS} keys; write the whole snapshot without merge`,
    );
  const base: unknown = prev ? JSON.parse(prev.content) : {};
  if (!isJsonObject(base))
    throw invalid('MERGE_TARGET_NOT_OBJECT', `the stored ${tool} is not a JSON object; write it without merge first`);
  const merged = deepMerge(base, patch);
  const fieldTicks: Record<string, number | null> = updateFieldTicks(
    prev ? JSON.parse(prev.fieldTicks) : {},
    merged.changed,
    tick,
  );
  return { content: merged.content as unknown, fieldTicks };
}

/** The campaign's tool rules by tool, in tool order (the store's reads, and an export's rows). */
export async function rulesIn(m: EntityManager, campaignId: string): Promise<Record<string, ToolRule>> {
  const rows = await m.getRepository(SnapshotToolRecord).find({ where: { campaignId }, order: { tool: 'ASC' } });
  return Object.fromEntries(
    rows.map((r) => [
      r.tool,
      {
        tool: r.tool,
        title: r.title,
        fields: r.fields ? (JSON.parse(r.fields) as string[]) : null,
        invalidatedBy: r.invalidatedBy ? (JSON.parse(r.invalidatedBy) as string[]) : null,
        maxAgeTicks: num(r.maxAgeTicks),
      },
    ]),
  );
}

/** A tool rule as its row (a PUT, and an import's restore). */
export const toolRecord = (campaignId: string, rule: ToolRule) => ({
  campaignId,
  tool: rule.tool,
  title: rule.title,
  fields: rule.fields ? JSON.stringify(rule.fields) : null,
  invalidatedBy: rule.invalidatedBy ? JSON.stringify(rule.invalidatedBy) : null,
  maxAgeTicks: rule.maxAgeTicks,
});
