import { clearAbove, copyCampaignRows, deleteCampaignRows, nullAbove, sql, tableColumns } from '@app/database';
import { EntityManager } from 'typeorm';
import { CampaignState } from '../domain/state';
import { Horizon } from '../timelines/horizon';
import { TimelineParticipant } from '../timelines/timeline.port';

/** Marks a message gets after it was recorded (a retraction): undone by a rewind, not copied by an earlier fork. */
const RETRACTION = ['retracted_version', 'retract_reason'];

/**
 * The campaign projector's rows in fork, rewind and delete (DESIGN §10): messages, their witnesses and tool
 * calls, the versioned state rows; the campaign row itself is `CampaignRows`' (the service writes it around the
 * participants). Set-based: a fork of 100k messages is a handful of statements.
 */
export class CampaignTimeline implements TimelineParticipant {
  readonly name = 'campaign';

  async copy(m: EntityManager, from: string, to: string, at: Horizon): Promise<void> {
    const n = [at.messageCount];
    const retraction = retractionAt(m, at.version);
    // The slice bounds `idx` below the message count by itself (no `"idx" < ?` here: see RowCopy.slice).
    const slice = { column: 'idx', below: at.messageCount };
    await copyCampaignRows(m, { table: 'messages', from, to, slice, ...retraction });
    await copyCampaignRows(m, { table: 'message_witnesses', from, to, where: '"idx" < ?', params: n });
    await copyCampaignRows(m, { table: 'tool_calls', from, to, where: '"message_index" < ?', params: n });
    await copyCampaignRows(m, {
      table: 'campaign_state_rows',
      from,
      to,
      where: '"valid_from" <= ?',
      params: [at.version],
      set: { valid_to: nullAbove('valid_to') },
      setParams: { valid_to: [at.version] },
    });
  }

  async rewind(m: EntityManager, id: string, to: Horizon): Promise<void> {
    const n = [to.messageCount];
    await deleteCampaignRows(m, 'message_witnesses', id, '"idx" >= ?', n);
    await deleteCampaignRows(m, 'tool_calls', id, '"message_index" >= ?', n);
    await deleteCampaignRows(m, 'messages', id, '"idx" >= ?', n);
    if (tableColumns(m, 'messages')?.includes('retracted_version')) {
      const text =
        'UPDATE "messages" SET "retracted_version" = NULL, "retract_reason" = NULL ' +
        'WHERE "campaign_id" = ? AND "retracted_version" > ?';
      await sql(m, text, [id, to.version]);
    }
    await deleteCampaignRows(m, 'campaign_state_rows', id, '"valid_from" > ?', [to.version]);
    await clearAbove(m, 'campaign_state_rows', id, ['valid_to'], to.version);
  }

  async remove(m: EntityManager, id: string): Promise<void> {
    for (const table of ['message_witnesses', 'tool_calls', 'messages', 'campaign_state_rows', 'campaign_timelines'])
      await deleteCampaignRows(m, table, id);
  }
}

/** `set` entries that leave out a retraction made after version V (for columns that exist). */
function retractionAt(m: EntityManager, version: number) {
  const columns = tableColumns(m, 'messages') ?? [];
  if (!columns.includes('retracted_version')) return {};
  const later = (col: string) => `CASE WHEN "retracted_version" > ? THEN NULL ELSE "${col}" END`;
  const set = Object.fromEntries(RETRACTION.filter((c) => columns.includes(c)).map((c) => [c, later(c)]));
  const setParams = Object.fromEntries(Object.keys(set).map((c) => [c, [version]]));
  return { set, setParams };
}

/** One rewind: the timeline it started, the game versions it went from and to, the memory version it kept. */
export interface TimelineRewind {
  timeline: number;
  fromVersion: number;
  toVersion: number;
  memoryVersion: number;
}

/** The `campaigns` row around a fork or rewind (the projector writes it on every append). */
export const CampaignRows = {
  /** The fork's row at version V, before its CampaignForked is applied (which moves it to V + 1). */
  async fork(m: EntityManager, from: string, to: string, state: CampaignState, parentVersion: number): Promise<void> {
    const columns = tableColumns(m, 'campaigns') ?? [];
    const set: Record<string, string> = {
      version: '?',
      // A state document only where the parent still has one (before the versioned state rows replaced it).
      state: `CASE WHEN "state" = '' THEN '' ELSE ? END`,
    };
    const setParams: Record<string, unknown[]> = { version: [state.version], state: [JSON.stringify(state)] };
    const extra: Record<string, unknown> = {
      timeline: 1,
      message_count: state.messageCount,
      parent_id: from,
      parent_version: parentVersion,
    };
    for (const [col, value] of Object.entries(extra)) {
      if (!columns.includes(col)) continue;
      set[col] = '?';
      setParams[col] = [value];
    }
    await copyCampaignRows(m, { table: 'campaigns', key: 'id', from, to, set, setParams });
  },

  /** The campaign's timeline (1 until its first rewind; 1 too before the column exists). */
  async timeline(m: EntityManager, id: string): Promise<number> {
    if (!tableColumns(m, 'campaigns')?.includes('timeline')) return 1;
    const rows = (
      await sql<{ timeline: number | string }>(m, 'SELECT "timeline" FROM "campaigns" WHERE "id" = ?', [id])
    ).rows;
    return rows.length ? Number(rows[0].timeline) : 1;
  },

  /** The rewound row at `to`, in its new timeline; the rewind is recorded in `campaign_timelines`. */
  async rewind(
    m: EntityManager,
    state: CampaignState,
    r: { fromVersion: number; timeline: number; memoryVersion: number; keptAs: string | null; at: string },
  ): Promise<void> {
    const columns = tableColumns(m, 'campaigns') ?? [];
    const sets = ['"version" = ?', `"state" = CASE WHEN "state" = '' THEN '' ELSE ? END`];
    const params: unknown[] = [state.version, JSON.stringify(state)];
    const extra: [string, unknown][] = [
      ['timeline', r.timeline],
      ['message_count', state.messageCount],
    ];
    for (const [col, value] of extra.filter(([c]) => columns.includes(c))) {
      sets.push(`"${col}" = ?`);
      params.push(value);
    }
    const text = `UPDATE "campaigns" SET ${sets.join(', ')} WHERE "id" = ? AND "version" = ?`;
    const res = await sql(m, text, [...params, state.id, r.fromVersion]);
    if (res.changes === 0) throw new Error(`campaign ${state.id} moved during append`);
    if (tableColumns(m, 'campaign_timelines')) {
      await sql(
        m,
        'INSERT INTO "campaign_timelines" ("campaign_id", "timeline", "from_version", "to_version", ' +
          '"memory_version", "kept_as", "rewound_at") VALUES (?, ?, ?, ?, ?, ?, ?)',
        [state.id, r.timeline, r.fromVersion, state.version, r.memoryVersion, r.keptAs, r.at],
      );
    }
  },

  async remove(m: EntityManager, id: string): Promise<void> {
    await deleteCampaignRows(m, 'campaigns', id, undefined, [], 'id');
  },

  /** The rewinds the campaign went through, oldest first (the event stream maps older ids through them). */
  async rewinds(m: EntityManager, id: string): Promise<TimelineRewind[]> {
    if (!tableColumns(m, 'campaign_timelines')) return [];
    const text =
      'SELECT "timeline", "from_version", "to_version", "memory_version" FROM "campaign_timelines" ' +
      'WHERE "campaign_id" = ? ORDER BY "timeline"';
    type Row = Record<'timeline' | 'from_version' | 'to_version' | 'memory_version', number | string>;
    return (await sql<Row>(m, text, [id])).rows.map((r) => ({
      timeline: Number(r.timeline),
      fromVersion: Number(r.from_version),
      toVersion: Number(r.to_version),
      memoryVersion: Number(r.memory_version),
    }));
  },

  async exists(m: EntityManager, id: string): Promise<boolean> {
    return (await sql(m, 'SELECT 1 AS "x" FROM "campaigns" WHERE "id" = ?', [id])).rows.length > 0;
  },
};

/** One `campaign_timelines` row in full (DESIGN §15: an export carries the rewinds, an import restores them). */
export interface TimelineRecord extends TimelineRewind {
  keptAs: string | null;
  rewoundAt: string;
}

/**
 * The campaign's rewind history, read and restored as rows: it is not a projection of the stream (a rewind deletes
 * the history it undid), so an import writes it before the events, and the projector's first append takes the
 * timeline from it as a rebuild does.
 */
export const TimelineHistory = {
  async read(m: EntityManager, id: string): Promise<TimelineRecord[]> {
    if (!tableColumns(m, 'campaign_timelines')) return [];
    const text =
      'SELECT "timeline", "from_version", "to_version", "memory_version", "kept_as", "rewound_at" ' +
      'FROM "campaign_timelines" WHERE "campaign_id" = ? ORDER BY "timeline"';
    const rows = (await sql<Record<string, number | string | null>>(m, text, [id])).rows;
    return rows.map((r) => ({
      timeline: Number(r.timeline),
      fromVersion: Number(r.from_version),
      toVersion: Number(r.to_version),
      memoryVersion: Number(r.memory_version),
      keptAs: r.kept_as === null ? null : String(r.kept_as),
      rewoundAt: String(r.rewound_at),
    }));
  },

  async restore(m: EntityManager, id: string, rows: TimelineRecord[]): Promise<void> {
    for (const r of rows)
      await sql(
        m,
        'INSERT INTO "campaign_timelines" ("campaign_id", "timeline", "from_version", "to_version", ' +
          '"memory_version", "kept_as", "rewound_at") VALUES (?, ?, ?, ?, ?, ?, ?)',
        [id, r.timeline, r.fromVersion, r.toVersion, r.memoryVersion, r.keptAs, r.rewoundAt],
      );
  },

  /** An id in use: a campaign row, or events under its game stream (what fork refuses as CAMPAIGN_EXISTS). */
  async taken(m: EntityManager, id: string): Promise<boolean> {
    if (await CampaignRows.exists(m, id)) return true;
    const text = 'SELECT 1 AS "x" FROM "campaign_timelines" WHERE "campaign_id" = ? LIMIT 1';
    return (await sql(m, text, [id])).rows.length > 0;
  },
};
