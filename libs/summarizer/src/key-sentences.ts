import { TranscriptLine } from './summarizer.port';

/** A sentence of the transcript, with where it came from. */
export interface Sentence {
  text: string;
  /** Position in the transcript, for putting picked sentences back in order. */
  order: number;
  /** Who said it, as a prefix ("Mira"), or null for narration. */
  speaker: string | null;
}

const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'st',
  'mt',
  'sr',
  'jr',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'lt',
  'capt',
  'gen',
]);

// Stems of words that mark something happened: these are what a game master needs to remember.
const OUTCOME = new RegExp(
  '\\b(' +
    [
      'found',
      'finds?',
      'gave',
      'gives?',
      'given',
      'promised?',
      'promises',
      'killed',
      'kills?',
      'slain',
      'slew',
      'agreed?',
      'agrees',
      'owes?',
      'owed',
      'refused?',
      'refuses',
      'stole',
      'stolen',
      'steals?',
      'learned',
      'learnt',
      'completed?',
      'cleared',
      'defeated',
      'paid',
      'pays?',
      'betray(ed|s)?',
      'rescued?',
      'saved',
      'discovered?',
      'revealed?',
      'escaped?',
      'captured?',
      'freed',
      'died',
      'dead',
      'won',
      'lost',
      'bought',
      'sold',
      'traded',
      'hired',
      'joined',
      'destroyed',
      'unlocked',
      'opened',
      'swore',
      'sworn',
      'vowed?',
      'warned',
      'threatened',
      'attacked',
      'healed',
      'cursed',
      'reward(ed)?',
      'deal',
      'debt',
      'secret',
      'map',
      'key',
      'treasure',
      'gold',
      'coins?',
    ].join('|') +
    ')\\b',
  'giu',
);
const NUMBER_WORDS =
  /\b(one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|fifty|hundred|thousand|dozen)\b/giu;
const DIGITS = /\d[\d,.]*/gu;
const CAPITALISED = /^[\p{Lu}][\p{L}'’-]*$/u;

export const wordsOf = (text: string): string[] => text.split(/\s+/).filter(Boolean);
export const countWords = (text: string): number => wordsOf(text).length;

const OPENERS: Record<string, string> = { '(': ')', '[': ']', '{': '}', '“': '”' };
/** OPENERS by char code (all of them single UTF-16 units): what each opener closes with. */
const CLOSER_OF = new Map<number, number>(
  Object.entries(OPENERS).map(([open, close]) => [open.charCodeAt(0), close.charCodeAt(0)]),
);
const STRAIGHT_QUOTE = 0x22;

/**
 * Quotation and bracket depth after each word of `words` (0 = outside every mark). Straight double quotes toggle;
 * apostrophes and single quotes are left alone ("Aria's", "don't" would read as marks). Walks UTF-16 units: every mark
 * is a single unit, and no half of a surrogate pair is one, so this reads a text as its code points would.
 */
export function depthsAfter(words: string[]): number[] {
  const stack: number[] = [];
  const depths = new Array<number>(words.length);
  for (let w = 0; w < words.length; w++) {
    const word = words[w];
    for (let i = 0; i < word.length; i++) {
      const c = word.charCodeAt(i);
      if (c === STRAIGHT_QUOTE) {
        if (stack[stack.length - 1] === STRAIGHT_QUOTE) stack.pop();
        else stack.push(STRAIGHT_QUOTE);
        continue;
      }
      const closer = CLOSER_OF.get(c);
      if (closer !== undefined) stack.push(closer);
      else if (stack.length > 0 && stack[stack.length - 1] === c) stack.pop(); // only closers are ever pushed
    }
    depths[w] = stack.length;
  }
  return depths;
}

/** Marks a sentence's last word may close with after its end mark (`"Stop."`, `(done.)`): the units of ["'”’)\]]. */
const TRAILING_MARKS = new Set<number>(['"', "'", '”', '’', ')', ']'].map((c) => c.charCodeAt(0)));
/** End marks of a sentence: . ! ? … */
const END_MARKS = new Set<number>(['.', '!', '?', '…'].map((c) => c.charCodeAt(0)));

/**
 * `token` without its trailing closing marks (what `token.replace(/["'”’)\]]+$/u, '')` gives, in one backward pass).
 */
function withoutTrailingMarks(token: string): string {
  let end = token.length;
  while (end > 0 && TRAILING_MARKS.has(token.charCodeAt(end - 1))) end--;
  return end === token.length ? token : token.slice(0, end);
}

/** True when a word ends its sentence (outside every mark): an end mark, not after an abbreviation like "Mr.". */
function endsSentence(token: string): boolean {
  const bare = withoutTrailingMarks(token);
  if (bare.length === 0 || !END_MARKS.has(bare.charCodeAt(bare.length - 1))) return false;
  return !ABBREVIATIONS.has(bare.replace(/\.$/, '').toLowerCase());
}

/**
 * Sentences of a text, split at . ! ? … and line breaks, abbreviations like "Mr." kept whole, and never inside
 * quotation
 * marks or brackets: `She said "Stop. Now." and left.` is one sentence.
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\n+/)) {
    const words = wordsOf(line);
    const depths = depthsAfter(words);
    let start = 0;
    for (let i = 0; i < words.length; i++) {
      if (depths[i] === 0 && endsSentence(words[i])) {
        out.push(sentenceOf(words, start, i + 1));
        start = i + 1;
      }
    }
    if (start < words.length) out.push(sentenceOf(words, start, words.length));
  }
  return out;
}

/** Words `from`…`to` (exclusive) joined by single spaces. */
const sentenceOf = (words: string[], from: number, to: number): string =>
  to - from === 1 ? words[from] : words.slice(from, to).join(' ');

/** True when every quotation mark and bracket the text opens it also closes (the property the summarizer keeps). */
export function balancedMarks(text: string): boolean {
  const words = wordsOf(text);
  return words.length === 0 || depthsAfter(words)[words.length - 1] === 0;
}

/**
 * A sentence cut to at most `max` words at a word outside every quotation and bracket, ending "…"; the sentence itself
 * when it fits; null when no such cut leaves anything (the sentence is one long quotation).
 */
export function cutOutsideMarks(text: string, max: number): string | null {
  const words = wordsOf(text);
  if (words.length <= max) return words.join(' ');
  const depths = depthsAfter(words);
  for (let n = max; n >= 3; n--)
    if (depths[n - 1] === 0)
      return `${words
        .slice(0, n)
        .join(' ')
        .replace(/[,;:]+$/, '')}…`;
  return null;
}

/** How much a sentence is worth remembering: names, numbers and outcomes score; filler does not. */
export function scoreSentence(text: string): number {
  const words = wordsOf(text);
  const names = words
    .slice(1)
    .map((w) => w.replace(/^["'“‘(]+|[^\p{L}]+$/gu, ''))
    .filter((w) => w !== 'I' && CAPITALISED.test(w));
  const numbers = (text.match(DIGITS)?.length ?? 0) + (text.match(NUMBER_WORDS)?.length ?? 0);
  const outcomes = text.match(OUTCOME)?.length ?? 0;
  let score = 2 * Math.min(new Set(names).size, 3) + 2 * Math.min(numbers, 2) + 3 * Math.min(outcomes, 2);
  if (words.length < 4) score -= 2;
  if (/\?["'”’)]*$/u.test(text)) score -= 1;
  return score;
}

/** Whole-word, case-insensitive test for any of the names. */
export function mentionsAny(text: string, names: string[]): boolean {
  return names.some((name) => {
    const trimmed = name.trim();
    if (!trimmed) return false;
    const escaped = trimmed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, 'iu').test(text);
  });
}

const ROLE_LABELS: Record<string, string> = { player: 'Player' };

/** Every sentence of the transcript, in order; `stripPrefix` removes a header our own earlier summaries carry. */
export function sentencesOf(messages: TranscriptLine[], stripPrefix?: string): Sentence[] {
  const out: Sentence[] = [];
  for (const m of messages) {
    let content = m.content ?? '';
    if (stripPrefix && m.role === 'summary' && content.startsWith(stripPrefix))
      content = content.slice(stripPrefix.length);
    const speaker = m.speaker?.trim() || ROLE_LABELS[m.role] || null;
    for (const text of splitSentences(content)) out.push({ text, order: out.length, speaker });
  }
  return out;
}

/** The sentence as compared for repeats: case- and whitespace-insensitive. */
export const sentenceKey = (text: string): string => text.toLowerCase().replace(/\s+/g, ' ').trim();

/** The `max` best sentences (at least 2 when there are 2), back in transcript order, duplicates dropped. */
export function pickKeySentences(sentences: Sentence[], max = 3, maxWords = Number.POSITIVE_INFINITY): Sentence[] {
  const seen = new Set<string>();
  const unique = sentences.filter((s) => {
    const key = sentenceKey(s.text);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const ranked = unique
    .map((s) => ({ s, score: scoreSentence(s.text) }))
    .sort((a, b) => b.score - a.score || a.s.order - b.s.order);
  const picked: Sentence[] = [];
  let words = 0;
  for (const [i, r] of ranked.entries()) {
    if (picked.length >= max || (i >= 2 && r.score <= 0)) break;
    const text = cutOutsideMarks(r.s.text, MAX_SENTENCE_WORDS);
    if (text === null) continue;
    // A sentence that does not fit whole (or cut outside its marks) is passed over for a shorter one.
    // Counted with the speaker's name, which renderSentences may put in front.
    const cost = countWords(text) + (r.s.speaker ? countWords(r.s.speaker) : 0);
    if (words + cost > maxWords) continue;
    words += cost;
    picked.push(text === r.s.text ? r.s : { ...r.s, text });
  }
  return picked.sort((a, b) => a.order - b.order);
}

const MAX_SENTENCE_WORDS = 40;

/** Cuts text to `max` words, marking the cut with "…". */
export function capWords(text: string, max: number): string {
  const words = wordsOf(text);
  return words.length <= max
    ? words.join(' ')
    : `${words
        .slice(0, max)
        .join(' ')
        .replace(/[,;:]+$/, '')}…`;
}

/**
 * Text cut to `max` words at a sentence end, so no sentence and no quotation is left open; the first sentence is cut
 * outside its marks only when it alone is longer (capWords as the last resort).
 */
export function capSentences(text: string, max: number): string {
  if (countWords(text) <= max) return wordsOf(text).join(' ');
  const kept: string[] = [];
  let words = 0;
  for (const sentence of splitSentences(text)) {
    const n = countWords(sentence);
    if (words + n > max) break;
    kept.push(sentence);
    words += n;
  }
  if (kept.length) return kept.join(' ');
  return cutOutsideMarks(text, max) ?? capWords(text, max);
}

/** Picked sentences as prose: "Mira: …" when the speaker changes, each sentence closed with punctuation. */
export function renderSentences(sentences: Sentence[]): string {
  let lastSpeaker: string | null = null;
  return sentences
    .map((s) => {
      let text = s.text;
      if (!/[.!?…]["'”’)\]]*$/u.test(text)) text += '.';
      const prefix = s.speaker && s.speaker !== lastSpeaker && !text.startsWith(s.speaker) ? `${s.speaker}: ` : '';
      lastSpeaker = s.speaker;
      return prefix + text;
    })
    .join(' ');
}
