import { depthsAfter, wordsOf } from './key-sentences';

/** §8: an offline definition is at most this many words. */
export const MAX_DEFINITION_WORDS = 25;
/** A clause shorter than this says too little to define anything ("the Probability Engine,"): it takes a neighbour. */
const MIN_CLAUSE_WORDS = 4;
/** Words a clause ends with: a separator at its end, outside quotes and brackets. */
const ENDS_CLAUSE = /[,;:—–]$/u;
/** Words that start a new clause when what they join is a clause of its own on both sides. */
const JOINERS = new Set(['and', 'but', 'while', 'whereas', 'because', 'though', 'although', 'yet', 'so']);

/** Word ranges [from, to) of a sentence's clauses: split at separators and joiners outside marks. */
function clauses(words: string[]): Array<[number, number]> {
  const depths = depthsAfter(words);
  const cuts = [0];
  for (let i = 0; i < words.length - 1; i++) {
    if (depths[i] !== 0) continue;
    const last = cuts[cuts.length - 1];
    if (ENDS_CLAUSE.test(words[i]) || words[i] === '-') cuts.push(i + 1);
    else if (JOINERS.has(words[i + 1].toLowerCase()) && i + 1 - last >= MIN_CLAUSE_WORDS) cuts.push(i + 1);
  }
  return cuts.map((from, k) => [from, k + 1 < cuts.length ? cuts[k + 1] : words.length]);
}

/** The index of the word where `term` first starts (case-insensitive), or -1. */
function wordOf(words: string[], term: string): number {
  const text = words.join(' ').toLowerCase();
  const wanted = term.toLowerCase().split(/\s+/).join(' ');
  const escaped = wanted.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // A whole word first ("Ash", not the "ash" of "Crash"); terms like "C++" may not start at a word boundary.
  const whole = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}`, 'u').exec(text);
  const char = whole ? whole.index : text.indexOf(wanted);
  if (char === -1) return -1;
  return text.slice(0, char).split(' ').length - 1;
}

/**
 * §8 a definition repeats nothing: the shortest clause of `sentence` around the first use of `term` — split at commas,
 * semicolons, colons, dashes and joining words outside quotes — widened by its neighbours while it is under four words,
 * at most MAX_DEFINITION_WORDS words (a longer clause is cut around the term, never inside quotes), ending with a
 * full stop. Null when the term is not in the sentence.
 */
export function clauseAround(sentence: string, term: string, max = MAX_DEFINITION_WORDS): string | null {
  const words = wordsOf(sentence);
  const at = wordOf(words, term);
  if (at === -1) return null;
  const all = clauses(words);
  let k = all.findIndex(([from, to]) => at >= from && at < to);
  // An apposition says what the term is: "…want the Void-Chisel, a blade that cuts doors" defines it by "a blade…".
  const termEnd = at + term.split(/\s+/).length;
  const apposition = all[k + 1];
  if (termEnd === all[k][1] && apposition && /^(a|an|one)$/i.test(words[apposition[0]])) k++;
  let [from, to] = all[k];
  const opensWithJoiner = (i: number) => i > 0 && JOINERS.has(words[i].toLowerCase());
  // Widen a clause too short to say anything: one that opens with its joiner belongs with the clause before it.
  let before = k;
  let after = k + 1;
  while (to - from - (opensWithJoiner(from) ? 1 : 0) < MIN_CLAUSE_WORDS && (after < all.length || before > 0)) {
    if (before > 0 && (opensWithJoiner(from) || after >= all.length)) from = all[--before][0];
    else to = all[after++][1];
  }
  if (to - from > max) {
    const depths = depthsAfter(words);
    from = Math.max(from, Math.min(at - 5, to - max));
    to = from + max;
    while (to > at + 1 && depths[to - 1] !== 0) to--;
  }
  // A clause that opens with its joiner reads as a fragment ("while the Engine hums"): the joiner goes.
  if (from > 0 && from < at && JOINERS.has(words[from].toLowerCase())) from++;
  const text = words
    .slice(from, to)
    .join(' ')
    .replace(/[,;:—–-]+$/u, '');
  const opened = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?…]["'”’)\]]*$/u.test(opened) ? opened : `${opened}.`;
}
