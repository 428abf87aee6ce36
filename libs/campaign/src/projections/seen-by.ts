import { PUBLIC_WITNESS } from '../domain/witnessing';

/** A filter on `messages m` as plain SQL pieces: `join` goes after `FROM messages m`, its `params` first. */
export interface SeenByFragment {
  join: string;
  /** ` AND …` or empty, to follow the statement's own conditions. */
  where: string;
  params: unknown[];
}

/**
 * The one §8 witness filter over `messages m`: the messages `viewer` saw. A character's witness key keeps its
 * `message_witnesses` rows; PUBLIC_WITNESS (the public view) keeps public messages, which is what everyone present
 * saw and nothing dm-only or private; undefined keeps everything (the dm). An inner join on the witness key, as
 * the copies it replaces had it, so the statements keep their plans (message range by primary key or
 * ix_messages_system, then a covering probe of the witness primary key; checked with EXPLAIN QUERY PLAN).
 */
export function seenBy(viewer: string | undefined): SeenByFragment {
  if (viewer === undefined) return { join: '', where: '', params: [] };
  if (viewer === PUBLIC_WITNESS) return { join: '', where: " AND m.visibility = 'public'", params: [] };
  const join = ' INNER JOIN message_witnesses w ON w.campaign_id = m.campaign_id AND w.idx = m.idx AND w.viewer_id = ?';
  return { join, where: '', params: [viewer] };
}
