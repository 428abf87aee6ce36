import { QueryNode } from '@app/search';

/** A term as the search index matches it: a whole word, or a prefix. */
export interface Term {
  word: string;
  prefix: boolean;
}

/** Lower-cased letter-and-digit runs, accents folded (as the search index tokenizes). */
export const wordsOf = (text: string): string[] =>
  text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * A query word as recall looks it up: words of 5+ letters lose a common suffix and match as a prefix; a word of 4
 * letters is a prefix as it is ("play" finds "playing", "bake" "baked"); shorter words and numbers stay exact.
 */
function stemOf(w: string): Term {
  const n = [...w].length;
  if (n === 4 && /^\p{L}+$/u.test(w)) return { word: w, prefix: true };
  if (n < 5) return { word: w, prefix: false };
  // A final "e" goes too: "dance" must find "dancing" as "danced" and "dances" do.
  const cut = w.replace(/(?:ation|tion|ment|ness|ity|ful|ive|ing|ed|es|er|ly|s|e)$/u, '');
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
export function termsOf(w: string): Term[] {
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
export const matchesAny = (words: string[], terms: Term[]): boolean =>
  words.some((w) => terms.some((t) => (t.prefix ? w.startsWith(t.word) : w === t.word)));

/**
 * A poor man's stemmer for recall (the index does not stem): a word of 5+ letters loses a common English suffix and
 * becomes a prefix, so "painted" also finds "painting" and "painter" (tuned on LoCoMo, docs/layered-context.md); a
 * word's other number joins it where the prefix cannot reach it ("pets" → `pets OR pet`, "hobby" → `hobby* OR
 * hobbies`).
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

/** "kind of", "type of", "sort of": words that frame what a question asks about rather than name it. */
const FRAME = /\b(kinds?|types?|sorts?)\s+of\b/giu;

/**
 * The query without the words that only frame it ("what kind of art" asks about art, not about kinds); the query
 * unchanged if nothing else would be left.
 */
export function withoutFrame(q: QueryNode, text: string): QueryNode {
  const frame = new Set([...text.matchAll(FRAME)].map((m) => m[1].toLowerCase()));
  if (frame.size === 0 || q.kind !== 'or') return q;
  const children = q.children.filter((c) => c.kind !== 'word' || !frame.has(c.word));
  if (children.length === 0) return q;
  return children.length === 1 ? children[0] : { kind: 'or', children };
}
