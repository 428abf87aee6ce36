import { CampaignReader, CampaignState, Horizon, StoredMessage } from '@app/campaign';
import { SearchHit } from '@app/search';
import { dateRange, queryDates, sameDate } from './dates';
import { messageEntry } from './entries';
import { Candidate } from './rank';

/** A recalled statement's next message ranks at this share of its score. */
const REPLY_FACTOR = 0.6;
/**
 * Relative score of a message said on a day the query names but matching none of its words, before DATE_BOOST; half
 * that for a month (tuned on LoCoMo, docs/layered-context.md).
 */
const DATED_SCORE = 0.6;
/** Messages of one named day or month read at most. */
const DATED_LIMIT = 200;

/** One recall's reads of messages: whose campaign, at which horizon, for which viewer. */
export class RecalledMessages {
  constructor(
    private readonly campaigns: CampaignReader,
    private readonly campaignId: string,
    private readonly at: Horizon,
    private readonly witness: string | null,
    private readonly dm: boolean,
    /** §8 secrets are marked in every view: a player's model must know which lines it may not blurt out. */
    private readonly marked: CampaignState,
    /** Refs the context's memory sections hold already. */
    private readonly held: Set<string>,
  ) {}

  /** The message hits the viewer may see, scored relative to the best hit. */
  async hits(hits: SearchHit[]): Promise<Candidate[]> {
    const kept = hits.filter((h) => !this.held.has(String(h.ref)));
    if (kept.length === 0) return [];
    const byIndex = new Map((await this.byIndex(kept.map((h) => Number(h.ref)))).map((m) => [m.index, m]));
    const top = kept[0].score || 1;
    return kept.flatMap((h) => {
      const m = byIndex.get(Number(h.ref));
      return m ? [this.candidate(m, h.score / top, true)] : [];
    });
  }

  /**
   * The message after a recalled statement — often the other speaker's answer to it — is a candidate of its own,
   * ranked at REPLY_FACTOR of the statement's score, so it fills room the better hits leave (tuned on LoCoMo,
   * docs/layered-context.md).
   */
  async statementReplies(hits: Candidate[]): Promise<Candidate[]> {
    const refs = new Set(hits.map((c) => c.entry.ref));
    const from = new Map(
      hits.filter((c) => !c.entry.text.includes('?')).map((c) => [Number(c.entry.ref) + 1, c] as const),
    );
    for (const i of from.keys()) if (refs.has(String(i)) || this.held.has(String(i))) from.delete(i);
    if (from.size === 0) return [];
    const next = await this.byIndex([...from.keys()]);
    return next.map((m) => this.candidate(m, from.get(m.index)!.score * REPLY_FACTOR, false));
  }

  /**
   * A query naming a day ("what did Nate cook on 9 November 2022?") asks about that day's lines, which often share no
   * word with it: the messages said that day join the hits at DATED_SCORE (before rankMessages' DATE_BOOST), so they
   * fill room the matching lines leave; a month ("in June 2023") brings its lines at half that. A date without its
   * year is looked for in each year the hits fall in.
   */
  async dated(query: string, found: Candidate[]): Promise<Candidate[]> {
    // A date without its year ("in June") is read in each year the hits fall in: the campaign's own years.
    const years = [...new Set(found.map((c) => new Date(c.entry.createdAt ?? '').getUTCFullYear()))]
      .filter((y) => !Number.isNaN(y))
      .sort((a, b) => a - b);
    const days = queryDates(query).flatMap((d) => (d.year !== undefined ? [d] : years.map((year) => ({ ...d, year }))));
    if (days.length === 0) return [];
    const refs = new Set(found.map((c) => c.entry.ref));
    const read = days
      .slice(0, 3)
      .map((d) => this.campaigns.messagesBetween(this.campaignId, { ...dateRange(d), limit: DATED_LIMIT }, this.at));
    const rows = (await Promise.all(read))
      .flat()
      .filter((m) => days.some((d) => sameDate(d, m.at)))
      .filter((m) => !refs.has(String(m.index)) && !this.held.has(String(m.index)));
    const unique = [...new Map(rows.map((m) => [m.index, m])).values()];
    const score = days.some((d) => d.day !== undefined) ? DATED_SCORE : DATED_SCORE / 2;
    return (await this.visible(unique)).map((m) => this.candidate(m, score, true));
  }

  /**
   * Each recalled message that asks something (has a `?`) brings the one after it — usually its answer — right
   * behind it, unless it is a hit itself or the viewer never saw it (tuned on LoCoMo, docs/layered-context.md). A
   * statement's next message is not attached: it competes at a lower score (statementReplies).
   */
  async withReplies(picked: Candidate[]): Promise<Candidate[]> {
    const refs = new Set(picked.map((c) => c.entry.ref));
    const wanted = picked
      .filter((c) => c.kind === 0 && c.entry.text.includes('?'))
      .map((c) => Number(c.entry.ref) + 1)
      .filter((i) => !refs.has(String(i)));
    const byIndex = new Map((await this.byIndex(wanted)).map((m) => [m.index, m]));
    return picked.flatMap((c) => {
      const reply = c.kind === 0 ? byIndex.get(Number(c.entry.ref) + 1) : undefined;
      return reply ? [c, this.candidate(reply, c.score, false)] : [c];
    });
  }

  private candidate(m: StoredMessage, score: number, withSpeaker: boolean): Candidate {
    const entry = messageEntry(m, this.marked);
    return withSpeaker ? { entry, score, kind: 0, speaker: m.speaker ?? undefined } : { entry, score, kind: 0 };
  }

  /** The visible messages of these indexes, in the reader's order. */
  private async byIndex(indexes: number[]): Promise<StoredMessage[]> {
    if (indexes.length === 0) return [];
    return this.visible(await this.campaigns.messagesByIndex(this.campaignId, indexes, this.at));
  }

  /** The messages the viewer may see: witnessed ones for a player or NPC, all but dm-only ones for other agents. */
  private async visible(messages: StoredMessage[]): Promise<StoredMessage[]> {
    const indexes = messages.map((m) => m.index);
    const seen = this.witness ? await this.campaigns.witnessed(this.campaignId, this.witness, indexes, this.at) : null;
    return messages.filter((m) => (seen ? seen.has(m.index) : this.dm || m.visibility !== 'dm'));
  }
}
