import { CampaignReader, CampaignState, ClockSetting, Horizon, StoredMessage } from '@app/campaign';
import { cutText } from '@app/common';
import { GlossaryEntry, LayersReader, MemoryReader } from '@app/memory';
import { servedWordings } from '@app/recall';
import { QueryNode, queryWords, recallQuery, SearchHit, SearchIndex } from '@app/search';
import { BuiltSection, ContextSection, SectionEntry, SectionInput } from '../context.types';
import { oneLine, toDay } from '../format';
import { secretMark } from '../recent-window';
import { relativeDatesOf } from '../relative-dates';
import { clockOf, datingMessages, roundAndDate } from '../story-dates';

export interface RecallOptions {
  /** RECALL_LIMIT: the section's own entries (DESIGN §8). */
  limit: number;
  /** Ranked entries offered past `limit`, to fill room the hot rounds leave (the composer decides, by budget). */
  pool: number;
}

/** Extra ranked hits offered past RECALL_LIMIT, room permitting (tuned on LoCoMo, docs/layered-context.md). */
export const DEFAULT_RECALL_POOL = 100;

/** A recalled message is cut here: one long speech must not crowd out the other hits. */
const MAX_RECALLED_CHARS = 1000;

export interface Candidate {
  entry: SectionEntry;
  /** Score relative to the best hit of its own kind (engines' scores are comparable within one answer only). */
  score: number;
  kind: number;
  /** A message's speaker. */
  speaker?: string;
}

/** Score factor of a message whose speaker the query names (tuned on LoCoMo, docs/layered-context.md). */
const SPEAKER_BOOST = 2;
/** Score factor of a message said on the day (or in the month) the query names. */
const DATE_BOOST = 4;
/**
 * Weight of a message's round-and-day cluster: the share of all hit scores that fell on its round and day, relative to
 * the busiest.
 */
const CLUSTER_WEIGHT = 0.3;
/** A recalled statement's next message ranks at this share of its score. */
const REPLY_FACTOR = 0.6;
/**
 * Score factor of a message that matched only by a name the query gives a speaker ("Thanks, Melanie!" for "when did
 * Melanie run a race?"): it says nothing about what is asked (tuned on LoCoMo, docs/layered-context.md).
 */
const NAME_ONLY_FACTOR = 0.3;

/**
 * Relative score of a message said on a day the query names but matching none of its words, before DATE_BOOST; half
 * that for a month (tuned on LoCoMo, docs/layered-context.md).
 */
const DATED_SCORE = 0.6;
const DAY_MS = 86_400_000;
/** Messages of one named day or month read at most. */
const DATED_LIMIT = 200;

const MEMORY_SECTIONS = new Set(['location', 'npc', 'world']);

/**
 * Recalled (DESIGN §8): with `query=`, the older messages, memories and glossary entries the search index ranks
 * highest for it that the context does not already hold, filtered by what the viewer witnessed, best first, each with
 * its round/date. Built after the other sections; hits Recent Messages holds are left out by the composer (and come
 * back if the budget takes them from Recent). Without a search index the section is absent.
 */
export class RecallSection implements ContextSection {
  readonly key = 'recall' as const;
  readonly title = 'Recalled';
  readonly after = true;

  constructor(
    private readonly index: SearchIndex | null,
    private readonly campaigns: CampaignReader,
    private readonly memories: MemoryReader,
    private readonly layers: LayersReader,
    private readonly options: RecallOptions,
  ) {}

  async build({ request, snapshot, audience, others = [] }: SectionInput): Promise<BuiltSection | null> {
    if (!this.index) return null;
    const words = request.query === undefined ? null : recallQuery(request.query);
    const query = words && withStemPrefixes(words);
    if (!words || !query || this.options.limit + this.options.pool === 0)
      return { key: this.key, title: this.title, entries: [] };
    // Hot messages stay candidates: if Recent Messages loses one to the budget, the composer brings its hit back here.
    const held = new Set(others.filter((s) => MEMORY_SECTIONS.has(s.key)).flatMap((s) => s.entries.map((e) => e.ref)));
    const hot = others.find((s) => s.key === 'recent')?.entries.length ?? 0;
    const heldTerms = new Set(
      others.filter((s) => s.key === 'glossary').flatMap((s) => s.entries.map((e) => e.ref.toLowerCase())),
    );
    const want = this.options.limit + this.options.pool;
    // Hits the viewer may not see or the context already holds are skipped, so ask for more than we keep.
    const ask = Math.min(500, 3 * want + held.size + hot);
    const cid = request.campaignId;
    const at = snapshot.horizon;
    const witness = audience?.witness ?? null;
    const dm = audience?.dm ?? false;
    const [messageHits, memoryHits] = await Promise.all([
      this.index.search(cid, query, { in: 'messages', limit: ask, at }),
      // §10: only the rows of the wordings served at the horizon (not an old wording, nor a deleted memory's).
      this.index
        .search(cid, query, { in: 'memories', limit: ask, at })
        .then((hits) => servedWordings(this.memories, cid, hits, at)),
    ]);
    // §8 secrets are marked in every view: a player's model must know which lines it may not blurt out.
    const marked = snapshot.state;
    const found = await this.messages(
      cid,
      at,
      messageHits.filter((h) => !held.has(String(h.ref))),
      witness,
      dm,
      marked,
    );
    const dated = await this.datedMessages(cid, at, request.query ?? '', found, held, witness, dm, marked);
    const terms = queryWords(words);
    const messages = rankMessages([...found, ...dated], terms, request.query ?? '');
    const replies = await this.statementReplies(cid, at, messages, held, witness, dm, marked);
    const candidates = [
      ...messages,
      ...replies,
      ...(await this.memoryCandidates(
        cid,
        at,
        memoryHits.filter((h) => !held.has(String(h.ref))),
        witness,
        clockOf(snapshot.state),
      )),
      ...this.glossary(
        await this.layers.glossary(cid, snapshot.state.glossary ?? {}, { viewer: witness, publicOnly: !dm, at }),
        heldTerms,
        wordsOf(terms.join(' ')),
      ),
    ];
    candidates.sort(
      (a, b) =>
        b.score - a.score || a.kind - b.kind || (a.entry.ref < b.entry.ref ? -1 : a.entry.ref > b.entry.ref ? 1 : 0),
    );
    const picked = await this.withReplies(cid, at, candidates.slice(0, want + hot), witness, dm, marked);
    const entries = picked.map((c, i) => ({ ...c.entry, rank: i + 1 }));
    return { key: this.key, title: this.title, entries, limit: this.options.limit, timeline: true };
  }

  private async messages(
    campaignId: string,
    at: Horizon,
    hits: SearchHit[],
    witness: string | null,
    dm: boolean,
    marked: CampaignState,
  ): Promise<Candidate[]> {
    if (hits.length === 0) return [];
    const indexes = hits.map((h) => Number(h.ref));
    const seen = witness ? await this.campaigns.witnessed(campaignId, witness, indexes, at) : null;
    const byIndex = new Map((await this.campaigns.messagesByIndex(campaignId, indexes, at)).map((m) => [m.index, m]));
    const top = hits[0].score || 1;
    return hits.flatMap((h) => {
      const m = byIndex.get(Number(h.ref));
      if (!m || (seen && !seen.has(m.index)) || (!witness && !dm && m.visibility === 'dm')) return [];
      return [{ entry: messageEntry(m, marked), score: h.score / top, kind: 0, speaker: m.speaker ?? undefined }];
    });
  }

  /**
   * The message after a recalled statement — often the other speaker's answer to it — is a candidate of its own, ranked
   * at
   * REPLY_FACTOR of the statement's score, so it fills room the better hits leave (tuned on LoCoMo,
   * docs/layered-context.md).
   */
  private async statementReplies(
    campaignId: string,
    at: Horizon,
    hits: Candidate[],
    held: Set<string>,
    witness: string | null,
    dm: boolean,
    marked: CampaignState,
  ): Promise<Candidate[]> {
    const refs = new Set(hits.map((c) => c.entry.ref));
    const from = new Map(
      hits.filter((c) => !c.entry.text.includes('?')).map((c) => [Number(c.entry.ref) + 1, c] as const),
    );
    for (const i of from.keys()) if (refs.has(String(i)) || held.has(String(i))) from.delete(i);
    if (from.size === 0) return [];
    const next = await this.visible(
      campaignId,
      at,
      await this.campaigns.messagesByIndex(campaignId, [...from.keys()], at),
      witness,
      dm,
    );
    return next.map((m) => ({
      entry: messageEntry(m, marked),
      score: from.get(m.index)!.score * REPLY_FACTOR,
      kind: 0,
    }));
  }

  /**
   * A query naming a day ("what did Nate cook on 9 November 2022?") asks about that day's lines, which often share no
   * word with it: the messages said that day join the hits at DATED_SCORE (before rankMessages' DATE_BOOST), so they
   * fill room the matching lines leave; a month with its year ("in June 2023") brings its lines at half that.
   */
  private async datedMessages(
    campaignId: string,
    at: Horizon,
    query: string,
    found: Candidate[],
    held: Set<string>,
    witness: string | null,
    dm: boolean,
    marked: CampaignState,
  ): Promise<Candidate[]> {
    const days = queryDates(query).filter((d) => d.year !== undefined);
    if (days.length === 0) return [];
    const refs = new Set(found.map((c) => c.entry.ref));
    const rows = (
      await Promise.all(
        days.slice(0, 3).map((d) => {
          // A day either side, as ISO strings compare; the exact day or month is checked below (UTC, as sameDate reads).
          const last = d.day === undefined ? Date.UTC(d.year!, d.month + 1, 1) : Date.UTC(d.year!, d.month, d.day + 1);
          const from = new Date(Date.UTC(d.year!, d.month, (d.day ?? 1) - 1)).toISOString().slice(0, 10);
          const to = new Date(last + DAY_MS).toISOString().slice(0, 10);
          return this.campaigns.messagesBetween(campaignId, { from, to, limit: DATED_LIMIT }, at);
        }),
      )
    )
      .flat()
      .filter((m) => days.some((d) => sameDate(d, m.at)) && !refs.has(String(m.index)) && !held.has(String(m.index)));
    const unique = [...new Map(rows.map((m) => [m.index, m])).values()];
    return (await this.visible(campaignId, at, unique, witness, dm)).map((m) => ({
      entry: messageEntry(m, marked),
      score: days.some((d) => d.day !== undefined) ? DATED_SCORE : DATED_SCORE / 2,
      kind: 0,
      speaker: m.speaker ?? undefined,
    }));
  }

  /** The messages the viewer may see: witnessed ones for a player or NPC, all but dm-only ones for other agents. */
  private async visible(
    campaignId: string,
    at: Horizon,
    messages: StoredMessage[],
    witness: string | null,
    dm: boolean,
  ): Promise<StoredMessage[]> {
    const seen = witness
      ? await this.campaigns.witnessed(
          campaignId,
          witness,
          messages.map((m) => m.index),
          at,
        )
      : null;
    return messages.filter((m) => (seen ? seen.has(m.index) : dm || m.visibility !== 'dm'));
  }

  /**
   * Each recalled message that asks something (has a `?`) brings the one after it — usually its answer — right behind
   * it,
   * unless it is a hit itself or the viewer never saw it (tuned on LoCoMo, docs/layered-context.md). A statement's next
   * message is not attached: it competes at a lower score (statementReplies).
   */
  private async withReplies(
    campaignId: string,
    at: Horizon,
    picked: Candidate[],
    witness: string | null,
    dm: boolean,
    marked: CampaignState,
  ): Promise<Candidate[]> {
    const refs = new Set(picked.map((c) => c.entry.ref));
    const wanted = picked
      .filter((c) => c.kind === 0 && c.entry.text.includes('?'))
      .map((c) => Number(c.entry.ref) + 1)
      .filter((i) => !refs.has(String(i)));
    const replies = await this.visible(
      campaignId,
      at,
      await this.campaigns.messagesByIndex(campaignId, wanted, at),
      witness,
      dm,
    );
    const byIndex = new Map(replies.map((m) => [m.index, m]));
    return picked.flatMap((c) => {
      const reply = c.kind === 0 ? byIndex.get(Number(c.entry.ref) + 1) : undefined;
      return reply ? [c, { entry: messageEntry(reply, marked), score: c.score, kind: 0 }] : [c];
    });
  }

  private async memoryCandidates(
    campaignId: string,
    at: Horizon,
    hits: SearchHit[],
    witness: string | null,
    clock: ClockSetting,
  ): Promise<Candidate[]> {
    if (hits.length === 0) return [];
    const summaries = new Map(
      (
        await this.memories.byIds(
          campaignId,
          hits.map((h) => String(h.ref)),
          witness ?? undefined,
          at,
        )
      ).map((m) => [m.id, m]),
    );
    const dates = await datingMessages(
      this.campaigns,
      campaignId,
      [...summaries.values()].map((m) => m.throughMessageIndex),
    );
    const top = hits[0].score || 1;
    return hits.flatMap((h) => {
      const m = summaries.get(String(h.ref));
      if (!m) return [];
      const last = dates.get(m.throughMessageIndex);
      // §8: dated by the last message of its selection, by the campaign's clock.
      const when = last
        ? roundAndDate(last, clock)
        : [h.round !== null ? `round ${h.round}` : null, clock === 'none' ? null : toDay(m.createdAt)]
            .filter(Boolean)
            .join(' · ');
      return [
        {
          entry: {
            ref: m.id,
            subjectId: m.subjectId,
            createdAt: m.createdAt,
            text: `- [${when}] Memory (${m.scope} ${m.subjectId}): ${oneLine(m.summary)}`,
            revision: m.revision,
            origin: m.origin,
          },
          score: h.score / top,
          kind: 1,
        },
      ];
    });
  }

  /**
   * The glossary is small and already loaded: its entries are ranked here by the query's words (term words weigh
   * double).
   */
  private glossary(entries: GlossaryEntry[], held: Set<string>, words: string[]): Candidate[] {
    const scored = entries
      .filter((e) => !held.has(e.term.toLowerCase()))
      .map((e) => {
        const term = new Set(wordsOf(e.term));
        const definition = new Set(wordsOf(e.definition));
        return { e, score: words.reduce((n, w) => n + (term.has(w) ? 2 : definition.has(w) ? 1 : 0), 0) };
      })
      .filter((x) => x.score > 0);
    const top = Math.max(1, ...scored.map((x) => x.score));
    return scored.map(({ e, score }) => ({
      entry: {
        ref: `glossary:${e.term}`,
        createdAt: e.createdAt ?? undefined,
        // No date: a term's is the worker's clock, not the story's (§8 story time).
        text: `- Glossary — ${oneLine(e.term)}: ${oneLine(e.definition)}`,
      },
      score: score / top,
      kind: 2,
    }));
  }
}

/**
 * A recalled message: `Aria: …` under its group `round 2 · 1 May 2026`. The text form prints Recall as a timeline with
 * one header per round and day rather than a date on every line — ~10 tokens a line that buy more hits per budget.
 */
function messageEntry(m: StoredMessage, state: CampaignState): SectionEntry {
  const text = oneLine(m.content);
  const cut = cutText(text, MAX_RECALLED_CHARS);
  // Read out of its day, "yesterday" needs the date it meant (from the message's story time).
  const clock = clockOf(state);
  const dated = relativeDatesOf(cut, m, clock);
  // §8: every view reads which recalled lines are secret.
  const mark = secretMark(state, m);
  return {
    ref: String(m.index),
    createdAt: m.at,
    group: roundAndDate(m, clock),
    seq: m.index,
    text: `${mark ? `${mark} ` : ''}${m.speaker ?? m.role}: ${dated}`,
    body: text,
  };
}

/**
 * Ranks message hits (scores relative to the best) beyond the index's bm25, by three rules measured on LoCoMo
 * (docs/layered-context.md):
 * - a query that names a speaker ("what did Caroline paint?") asks what that speaker said more than what was said to
 *   them: the named speakers' messages weigh SPEAKER_BOOST times as much;
 * - a query that names a date ("on 13 October 2023", "in June") favours what was said that day (or month) by
 *   DATE_BOOST;
 * - hits cluster where a topic was discussed: each message gains CLUSTER_WEIGHT × its round-and-day's share of the
 *   hits' scores (relative to the busiest round and day), so the quieter lines of that conversation come along.
 * Returns the candidates with scores relative to the best again, in their input order.
 */
export function rankMessages(hits: Candidate[], words: string[], query: string): Candidate[] {
  if (hits.length === 0) return hits;
  const named = speakerWords(words, hits);
  const topical = words.filter((w) => !named.has(w)).flatMap(termsOf);
  const spoken = named.size
    ? hits.map((c) => {
        const boost = c.speaker && wordsOf(c.speaker).some((w) => named.has(w)) ? SPEAKER_BOOST : 1;
        const onTopic = topical.length === 0 || matchesAny(wordsOf(c.entry.body ?? c.entry.text), topical);
        const aside = onTopic ? 1 : NAME_ONLY_FACTOR;
        return boost * aside === 1 ? c : { ...c, score: c.score * boost * aside };
      })
    : hits;
  const clusters = new Map<string, number>();
  for (const c of spoken) clusters.set(c.entry.group ?? '', (clusters.get(c.entry.group ?? '') ?? 0) + c.score);
  const busiest = Math.max(...clusters.values()) || 1;
  const dates = queryDates(query);
  const scored = spoken.map((c) => {
    const onDate =
      dates.length > 0 && c.entry.createdAt !== undefined && dates.some((d) => sameDate(d, c.entry.createdAt!));
    return {
      ...c,
      score: c.score * (onDate ? DATE_BOOST : 1) + (CLUSTER_WEIGHT * clusters.get(c.entry.group ?? '')!) / busiest,
    };
  });
  const top = Math.max(...scored.map((c) => c.score)) || 1;
  return scored.map((c) => ({ ...c, score: c.score / top }));
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const MONTH = `(${MONTHS.join('|')})`;
const DAY_MONTH = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}\\b,?\\s*(\\d{4})?`, 'gu');
const MONTH_DAY = new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b,?\\s*(\\d{4})?`, 'gu');
const MONTH_ONLY = new RegExp(`\\b${MONTH}\\b,?\\s*(\\d{4})?`, 'gu');

/** A date a query names: a day of a month ("13 October 2023", "October 13") or a month ("in June", "July 2023"). */
export interface QueryDate {
  year?: number;
  /** 0–11. */
  month: number;
  day?: number;
}

/** The dates a query names (English month names); "may" counts as a month only with a day or a year beside it. */
export function queryDates(query: string): QueryDate[] {
  const text = query.toLowerCase();
  const year = (y?: string) => (y ? Number(y) : undefined);
  const days = [
    ...[...text.matchAll(DAY_MONTH)].map((x) => ({ day: Number(x[1]), month: MONTHS.indexOf(x[2]), year: year(x[3]) })),
    ...[...text.matchAll(MONTH_DAY)].map((x) => ({ day: Number(x[2]), month: MONTHS.indexOf(x[1]), year: year(x[3]) })),
  ].filter((d) => d.day >= 1 && d.day <= 31);
  if (days.length) return days;
  return [...text.matchAll(MONTH_ONLY)]
    .filter((x) => x[1] !== 'may' || x[2])
    .map((x) => ({ month: MONTHS.indexOf(x[1]), year: year(x[2]) }));
}

/** Whether an ISO time falls on the date (UTC, as messages' `at` are stored). */
function sameDate(d: QueryDate, iso: string): boolean {
  const at = new Date(iso);
  return (
    !Number.isNaN(at.getTime()) &&
    d.month === at.getUTCMonth() &&
    (d.year === undefined || d.year === at.getUTCFullYear()) &&
    (d.day === undefined || d.day === at.getUTCDate())
  );
}

/** Query words that name a speaker of the hits (case-insensitive). */
function speakerWords(words: string[], hits: Candidate[]): Set<string> {
  const speakers = new Set(hits.flatMap((c) => (c.speaker ? wordsOf(c.speaker) : [])));
  return new Set(words.filter((w) => speakers.has(w)));
}

const wordsOf = (text: string): string[] =>
  text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * A query word as recall looks it up: words of 5+ letters lose a common suffix and match as a prefix; a word of 4
 * letters is a prefix as it is ("play" finds "playing", "bake" "baked"); shorter words and numbers stay exact.
 */
function stemOf(w: string): { word: string; prefix: boolean } {
  const n = [...w].length;
  if (n === 4 && /^\p{L}+$/u.test(w)) return { word: w, prefix: true };
  if (n < 5) return { word: w, prefix: false };
  const cut = w.replace(/(?:ing|ed|es|er|ly|s)$/u, '');
  return { word: [...cut].length >= 4 ? cut : w, prefix: true };
}

const VOWELS = new Set(['a', 'e', 'i', 'o', 'u']);

/**
 * The other grammatical number of a query word, where a prefix cannot reach it: a short word matches exactly ("pets"
 * must find "pet", "cat" must find "cats"), and "-y" / "-ies" differ before the ending ("stories" ↔ "story").
 */
export function numberVariants(w: string): string[] {
  if (!/^\p{L}+$/u.test(w)) return [];
  const n = [...w].length;
  const beforeY = w.length >= 2 ? w[w.length - 2] : '';
  if (n >= 4 && w.endsWith('ies')) return [`${w.slice(0, -3)}y`];
  if (n >= 4 && w.endsWith('y') && !VOWELS.has(beforeY)) return [`${w.slice(0, -1)}ies`];
  if (n >= 5) return [];
  if (w.endsWith('s')) return n >= 4 && !/(?:ss|us|is)$/u.test(w) ? [w.slice(0, -1)] : [];
  return n >= 3 ? [`${w}s`] : [];
}

/** The terms one query word looks up: its stem, and its other number where the stem does not reach it. */
function termsOf(w: string): { word: string; prefix: boolean }[] {
  const stem = stemOf(w);
  const reached = (v: string) => (stem.prefix ? v.startsWith(stem.word) : v === stem.word);
  return [
    stem,
    ...numberVariants(w)
      .filter((v) => !reached(v))
      .map((word) => ({ word, prefix: false })),
  ];
}

/** Whether any of the words is one of the (stemmed) terms, as the search index matches them. */
const matchesAny = (words: string[], terms: { word: string; prefix: boolean }[]) =>
  words.some((w) => terms.some((t) => (t.prefix ? w.startsWith(t.word) : w === t.word)));

/**
 * A poor man's stemmer for recall (the index does not stem): a word of 5+ letters loses a common English suffix and
 * becomes a prefix, so "painted" also finds "painting" and "painter" (tuned on LoCoMo, docs/layered-context.md); a
 * word's other number joins it where the prefix cannot reach it ("pets" → `pets OR pet`, "hobby" → `hobby* OR hobbies`).
 */
export function withStemPrefixes(q: QueryNode): QueryNode {
  const terms = (w: string): QueryNode[] => termsOf(w).map((t) => ({ kind: 'word', ...t }));
  if (q.kind === 'word') {
    const children = terms(q.word);
    return children.length === 1 ? children[0] : { kind: 'or', children };
  }
  if (q.kind === 'or')
    return { kind: 'or', children: q.children.flatMap((c) => (c.kind === 'word' ? terms(c.word) : [c])) };
  return q;
}
