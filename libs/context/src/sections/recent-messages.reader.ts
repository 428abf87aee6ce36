import { fromMessageRecord, PUBLIC_WITNESS, MessageRecord, MessageWitnessRecord, StoredMessage, ToolCallRecord } from '@app/campaign';
import { Database } from '@app/database';
import { EntityManager, In, SelectQueryBuilder } from 'typeorm';

export interface RecentWindow {
  /** Oldest first. */
  messages: StoredMessage[];
  /** The campaign's first system message when it precedes the window (pinned), else null. */
  pinned: StoredMessage | null;
  /** Call id → tool name for every tool result in the window. */
  toolNames: Map<string, string>;
}

/** Reads of the Recent Messages section; each is an index seek or a bounded index range, never a scan. */
export class RecentMessagesReader {
  constructor(private readonly db: Database) {}

  /**
   * The last `limit` messages, or (with `fromRound`) the messages from that round on, capped at `limit`.
   * §8 `seenBy`: only what that audience may see (a witness key, PUBLIC_WITNESS = public messages only).
   */
  async window(campaignId: string, o: { limit: number; fromRound?: number; seenBy?: string }): Promise<RecentWindow> {
    return this.db.read(async (m) => {
      const start = o.fromRound === undefined ? 0 : await firstIndexOfRound(m, campaignId, o.fromRound);
      const rows =
        start === null
          ? []
          : await seenBy(m.getRepository(MessageRecord).createQueryBuilder('m').where('m.campaignId = :campaignId AND m.index >= :start', { campaignId, start }), o.seenBy)
              .orderBy('m.index', 'DESC')
              .limit(o.limit)
              .getMany();
      const messages = rows.map(fromMessageRecord).reverse();
      // An empty window (no message yet in the hot rounds) still pins the system message.
      const windowStart = messages.length ? messages[0].index : Number.MAX_SAFE_INTEGER;
      const pinned = windowStart > 0 ? await firstSystemBefore(m, campaignId, windowStart, o.seenBy) : null;
      const callIds = [...new Set(messages.map((x) => x.toolCallId).filter((x): x is string => !!x))];
      const calls = callIds.length ? await m.getRepository(ToolCallRecord).findBy({ campaignId, callId: In(callIds) }) : [];
      return { messages, pinned, toolNames: new Map(calls.map((c) => [c.callId, c.name])) };
    });
  }
}

/** Rounds never go back, so the messages from `round` on are those from its first index (ix_messages_round). */
async function firstIndexOfRound(m: EntityManager, campaignId: string, round: number): Promise<number | null> {
  const row = await m
    .getRepository(MessageRecord)
    .createQueryBuilder('m')
    .select('m.index', 'idx')
    .where('m.campaignId = :campaignId AND m.round >= :round', { campaignId, round })
    .orderBy('m.round', 'ASC')
    .addOrderBy('m.index', 'ASC')
    .limit(1)
    .getRawOne<{ idx: number }>();
  return row ? Number(row.idx) : null;
}

/** The campaign's first system message if it lies before `index` (ix_messages_role). */
async function firstSystemBefore(m: EntityManager, campaignId: string, index: number, audience?: string): Promise<StoredMessage | null> {
  const row = await seenBy(m.getRepository(MessageRecord).createQueryBuilder('m').where('m.campaignId = :campaignId AND m.role = :role', { campaignId, role: 'system' }), audience)
    .orderBy('m.index', 'ASC')
    .limit(1)
    .getOne();
  return row && Number(row.index) < index ? fromMessageRecord(row) : null;
}

/** §8 witnessing: a viewer's witnessed messages (message_witnesses), or the public ones. */
function seenBy(qb: SelectQueryBuilder<MessageRecord>, audience: string | undefined): SelectQueryBuilder<MessageRecord> {
  // §8 public view: neither dm-only nor private text.
  if (audience === PUBLIC_WITNESS) return qb.andWhere("m.visibility = 'public'");
  if (audience !== undefined) qb.innerJoin(MessageWitnessRecord, 'w', 'w.campaignId = m.campaignId AND w.index = m.index AND w.viewerId = :viewer', { viewer: audience });
  return qb;
}
