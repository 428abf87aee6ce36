/** Words that carry no answer content; small on purpose (see README.md of the eval data in ../shared/eval). */
export const STOP_WORDS = new Set(
  (
    'a an the and or but of to in on at for with by from as is are was were be been being it its this that these those ' +
    'i you he she we they me him her us them my your his our their not no yes do does did so than then there here ' +
    'what which who whom when where why how all any some into about over after before up down out off again very just ' +
    'also can will would should could has have had'
  ).split(' '),
);

/**
 * The second metric's stop words (issue 17): articles, pronouns, auxiliaries and prepositions only — so words like
 * "not", "yes", "after", "again" count as answer words there.
 */
export const SMALL_STOP_WORDS = new Set(
  (
    'a an the i you he she it we they me him her us them my your his its our their mine yours hers ours theirs ' +
    'is are was were be been being am do does did has have had will would shall should can could may might must ' +
    'of to in on at for with by from into onto about over under after before between through during up down out off'
  ).split(' '),
);

/** Lower-cased alphanumeric words minus stop words, in order (repeats kept). */
export function contentWords(text: string, stop: ReadonlySet<string> = STOP_WORDS): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !stop.has(w));
}

/** The set of words a served text offers, to test answers against (every word: stop words are left out of answers). */
export const wordSet = (text: string): Set<string> => new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);

/** Share of the answer's content words found in the served words; null when the answer has none. */
export function answerRecall(
  answer: string,
  served: Set<string>,
  stop: ReadonlySet<string> = STOP_WORDS,
): number | null {
  const words = contentWords(answer, stop);
  if (words.length === 0) return null;
  return words.filter((w) => served.has(w)).length / words.length;
}
