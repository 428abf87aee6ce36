/** Words that carry no answer content; small on purpose (see /work/shared/eval/README.md). */
export const STOP_WORDS = new Set(
  ('a an the and or but of to in on at for with by from as is are was were be been being it its this that these those ' +
    'i you he she we they me him her us them my your his our their not no yes do does did so than then there here ' +
    'what which who whom when where why how all any some into about over after before up down out off again very just ' +
    'also can will would should could has have had').split(' '),
);

/** Lower-cased alphanumeric words minus stop words, in order (repeats kept). */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !STOP_WORDS.has(w));
}

/** The set of words a served text offers, to test answers against. */
export const wordSet = (text: string): Set<string> => new Set(contentWords(text));

/** Share of the answer's content words found in the served words; null when the answer has none. */
export function answerRecall(answer: string, served: Set<string>): number | null {
  const words = contentWords(answer);
  if (words.length === 0) return null;
  return words.filter((w) => served.has(w)).length / words.length;
}
