import { SectionEntry } from '../../context.types';
import { queryDates, sameDate } from './dates';
import { matchesAny, termsOf, wordsOf } from './terms';

export interface Candidate {
  entry: SectionEntry;
  /** Score relative to the best hit of its own kind (engines' scores are comparable within one answer only). */
  score: number;
  /** 0 a message, 1 a memory, 2 a glossary entry (the tie-break after the score). */
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
/**
 * Score factor of a message that matched only by a name the query gives a speaker ("Thanks, Melanie!" for "when did
 * Melanie run a race?"): it says nothing about what is asked (tuned on LoCoMo, docs/layered-context.md).
 */
const NAME_ONLY_FACTOR = 0.3;

/** Best first; ties: messages, memories, glossary, then by ref (byte-deterministic). */
export const byScore = (a: Candidate, b: Candidate): number =>
  b.score - a.score || a.kind - b.kind || (a.entry.ref < b.entry.ref ? -1 : a.entry.ref > b.entry.ref ? 1 : 0);

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
  const spoken = bySpeaker(hits, words, query);
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

/** SPEAKER_BOOST for the named speakers' messages, NAME_ONLY_FACTOR for a message that matched only by the name. */
function bySpeaker(hits: Candidate[], words: string[], query: string): Candidate[] {
  const { named, names } = speakerWords(words, hits, query);
  if (named.size === 0) return hits;
  const topical = words.filter((w) => !named.has(w)).flatMap(termsOf);
  return hits.map((c) => {
    const boost = c.speaker && wordsOf(c.speaker).some((w) => names.has(w)) ? SPEAKER_BOOST : 1;
    const onTopic = topical.length === 0 || matchesAny(wordsOf(c.entry.body ?? c.entry.text), topical);
    const aside = onTopic ? 1 : NAME_ONLY_FACTOR;
    return boost * aside === 1 ? c : { ...c, score: c.score * boost * aside };
  });
}

/**
 * Query words that name a speaker of the hits, and the names' words they name: a word of the speaker's name
 * (case-insensitive), or a short form of it written as a name — "Mel" for Melanie, "Jonathan" for a speaker called Jon:
 * a capitalised word, not the query's first, of 3+ letters that starts the name or that the name starts.
 */
function speakerWords(words: string[], hits: Candidate[], query: string): { named: Set<string>; names: Set<string> } {
  const speakers = [...new Set(hits.flatMap((c) => (c.speaker ? wordsOf(c.speaker) : [])))];
  const written = capitalised(query);
  const short = (w: string, s: string) => w.length >= 3 && s.length >= 3 && (s.startsWith(w) || w.startsWith(s));
  const named = new Set<string>();
  const names = new Set<string>();
  for (const w of words)
    for (const s of speakers)
      if (s === w || (written.has(w) && short(w, s))) {
        named.add(w);
        names.add(s);
      }
  return { named, names };
}

/** The query's capitalised words past its first, lower-cased: how a name is written. */
function capitalised(query: string): Set<string> {
  const names = [...query.matchAll(/(?<![\p{L}\p{N}])\p{Lu}[\p{L}\p{N}]*/gu)].filter((m) => m.index! > 0);
  return new Set(names.flatMap((m) => wordsOf(m[0])));
}
