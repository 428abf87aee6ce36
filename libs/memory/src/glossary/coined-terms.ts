// Glossary term detection (DESIGN §8 "Glossary"): pure text heuristics, no I/O.

// A word: letters/digits with combining marks, inner apostrophes (O'Brien, Engine's) and hyphens (Void-Chisel).
const PART = String.raw`[\p{L}\p{N}][\p{L}\p{N}\p{M}]*(?:['’][\p{L}\p{N}][\p{L}\p{N}\p{M}]*)*`;
const WORD = new RegExp(`${PART}(?:[-‐‑]${PART})*`, 'gu');
const HYPHEN = /[-‐‑]/u;
const POSSESSIVE = /['’]s$/u;
// Only spaces and tabs continue a run; any punctuation or line break ends it.
const RUN_GAP = /^[ \t\u00a0\u202f]+$/u;
// A sentence starts after . ! ? … (plus closing quotes/brackets) and a space, at a line break, or at an opening double
// quote.
const SENTENCE_START = /[.!?…]["'”’»)\]]*\s|[\n\r\u2028\u2029]|(?:^|\s)["“«][^\p{L}\p{N}\s]*$/u;

// Capitalised only by grammar, never by choice: they never start or join a run, and are never terms.
const FUNCTION_WORDS = new Set(
  (
    'the a an and but or nor so yet for when while if in on at to from by with of as into onto upon ' +
    'it its he she they we you i me him her us them his hers our their my your this that these those ' +
    'there here then now what who whom whose which where why how after before once since until unless ' +
    'is are was were be been am do does did not no yes all any some each every both either neither ' +
    'let oh ah well'
  ).split(' '),
);
// Common sentence openers that are capitalised only because they open the sentence.
const SENTENCE_OPENERS = new Set(
  (
    'suddenly meanwhile later soon still finally again perhaps maybe only even just also instead ' +
    'inside outside above below beyond behind beneath around somewhere everywhere nowhere ' +
    'everyone someone nobody nothing something everything anyone today tonight tomorrow yesterday ' +
    'please thanks sorry look listen come go wait stop see'
  ).split(' '),
);

interface Word {
  text: string; // possessive 's removed
  start: number;
  end: number;
  gapBefore: string;
  possessive: boolean;
}

const HAS_CAPITAL = /[\p{Lu}\p{Lt}]/u;
const isCapitalised = (s: string) => /^[\p{Lu}\p{Lt}]/u.test(s);
const letters = (s: string) => s.match(/\p{L}/gu) ?? [];

function scan(text: string): Word[] {
  const words: Word[] = [];
  let previousEnd = 0;
  for (const m of text.matchAll(WORD)) {
    const start = m.index ?? 0;
    const possessive = POSSESSIVE.test(m[0]);
    words.push({
      text: possessive ? m[0].slice(0, -2) : m[0],
      start,
      end: start + m[0].length,
      gapBefore: text.slice(previousEnd, start),
      possessive,
    });
    previousEnd = start + m[0].length;
  }
  return words;
}

/** Longer "terms" are runs of title-case prose, not names. */
export const MAX_TERM_CHARS = 100;

/**
 * A message coins at most this many new terms, the first it uses: each costs a `defineTerm` call and a line in
 * every later context (the glossary is never dropped), and one hostile message used to coin 407. The rest are not
 * lost: they are still unknown, so the next message that uses one coins it.
 */
export const MAX_NEW_TERMS_PER_MESSAGE = 10;

/**
 * Coined terms of a message (DESIGN §8), in first-seen order, each once (case-insensitively), skipping `known` ones
 * and those over MAX_TERM_CHARS, at most MAX_NEW_TERMS_PER_MESSAGE of them: a run of ≥ 2 capitalised words, a
 * capitalised word (or run) after "the", a CamelCase word, an ALL-CAPS word of ≥ 3 letters.
 */
export function extractCoinedTerms(text: string, known: (term: string) => boolean): string[] {
  return coinedTerms(text, known, MAX_NEW_TERMS_PER_MESSAGE);
}

/** Every term `text` coins, uncapped: what a bible names is known however many names it holds. */
export function allCoinedTerms(text: string): string[] {
  return coinedTerms(text, () => false, Infinity);
}

function coinedTerms(text: string, known: (term: string) => boolean, limit: number): string[] {
  const words = scan(text.normalize('NFC'));
  const sentenceInitial = (i: number) => i === 0 || SENTENCE_START.test(words[i].gapBefore);
  const joinsPrevious = (i: number) => i > 0 && !words[i - 1].possessive && RUN_GAP.test(words[i].gapBefore);
  const lower = (i: number) => words[i].text.toLowerCase();
  const parts = (i: number) => words[i].text.split(HYPHEN);
  // "Void-Chisel" weighs 2: a hyphen joins capitalised words into one term.
  const weight = (i: number) => (parts(i).every(isCapitalised) ? parts(i).length : 1);
  const isCamelCase = (i: number) => /\p{Ll}\p{M}*\p{Lu}/u.test(words[i].text);
  const isAllCaps = (i: number) => {
    const l = letters(words[i].text);
    // Shouted ordinary words ("THE", "STOP") are emphasis, not names.
    return (
      l.length >= 3 &&
      l.every((c) => /\p{Lu}/u.test(c)) &&
      !FUNCTION_WORDS.has(lower(i)) &&
      !SENTENCE_OPENERS.has(lower(i))
    );
  };
  // Single capital letters ("Plan B") may continue a run but never start one; "I" never takes part.
  const canJoin = (i: number) => isCapitalised(words[i].text) && !FUNCTION_WORDS.has(lower(i));
  const canStart = (i: number) =>
    canJoin(i) &&
    [...words[i].text].length > 1 &&
    !(sentenceInitial(i) && (SENTENCE_OPENERS.has(lower(i)) || /^\p{Lu}\p{Ll}{3,}ly$/u.test(words[i].text)));

  const seen = new Set<string>();
  const terms: string[] = [];
  const add = (term: string) => {
    const key = term.toLowerCase();
    if (seen.has(key)) return;
    seen.add(key);
    if (term.length <= MAX_TERM_CHARS && !known(term)) terms.push(term);
  };

  let i = 0;
  while (i < words.length && terms.length < limit) {
    // Every rule needs a capital: a word without one (any caseless script, most of a hostile run) starts nothing,
    // and skipping it here saves the regular expressions below, once per word of a 32,000-character bible.
    if (!HAS_CAPITAL.test(words[i].text)) {
      i++;
      continue;
    }
    const afterThe = i > 0 && lower(i - 1) === 'the' && joinsPrevious(i);
    if (!canStart(i)) {
      if (isCamelCase(i) || isAllCaps(i)) add(words[i].text);
      i++;
      continue;
    }
    let end = i;
    while (end + 1 < words.length && !words[end].possessive && joinsPrevious(end + 1) && canJoin(end + 1)) end++;
    const run = words.slice(i, end + 1);
    const runWeight = run.reduce((sum, _w, k) => sum + weight(i + k), 0);
    if (runWeight >= 2 || afterThe || isCamelCase(i) || isAllCaps(i)) add(run.map((w) => w.text).join(' '));
    i = end + 1;
  }
  return terms;
}

const SENTENCE_END = /(?<=[.!?…]["'”’»)\]]*)\s+|[\r\n\u2028\u2029]+/u;
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The first sentence of `text` that uses `term` (case-insensitive, whole words), cut to `maxWords` words with "…"; ''
 * if none.
 */
export function firstSentenceWith(text: string, term: string, maxWords = 20): string {
  const needle = term.trim().split(/\s+/u).map(escapeRegExp).join('\\s+');
  if (needle === '') return '';
  const uses = new RegExp(`(?<![\\p{L}\\p{N}\\p{M}])${needle}(?![\\p{L}\\p{N}\\p{M}])`, 'iu');
  const sentence = text
    .normalize('NFC')
    .split(SENTENCE_END)
    .find((s) => uses.test(s));
  if (sentence === undefined) return '';
  const words = sentence.trim().split(/\s+/u);
  const limit = Math.max(1, Math.floor(maxWords));
  if (words.length <= limit) return words.join(' ');
  return (
    words
      .slice(0, limit)
      .join(' ')
      .replace(/[\s,;:—–-]+$/u, '') + '…'
  );
}
