import { TranscriptLine } from './summarizer.port';

/** A sentence of the transcript, with where it came from. */
export interface Sentence {
  text: string;
  /** Position in the transcript, for putting picked sentences back in order. */
  order: number;
  /** Who said it, as a prefix ("Mira"), or null for narration. */
  speaker: string | null;
}

const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'dr', 'st', 'mt', 'sr', 'jr', 'vs', 'etc', 'e.g', 'i.e', 'lt', 'capt', 'gen']);

// Stems of words that mark something happened: these are what a game master needs to remember.
const OUTCOME = new RegExp(
  '\\b(' +
    [
      'found', 'finds?', 'gave', 'gives?', 'given', 'promised?', 'promises', 'killed', 'kills?', 'slain', 'slew',
      'agreed?', 'agrees', 'owes?', 'owed', 'refused?', 'refuses', 'stole', 'stolen', 'steals?', 'learned', 'learnt',
      'completed?', 'cleared', 'defeated', 'paid', 'pays?', 'betray(ed|s)?', 'rescued?', 'saved', 'discovered?',
      'revealed?', 'escaped?', 'captured?', 'freed', 'died', 'dead', 'won', 'lost', 'bought', 'sold', 'traded', 'hired',
      'joined', 'destroyed', 'unlocked', 'opened', 'swore', 'sworn', 'vowed?', 'warned', 'threatened', 'attacked',
      'healed', 'cursed', 'reward(ed)?', 'deal', 'debt', 'secret', 'map', 'key', 'treasure', 'gold', 'coins?',
    ].join('|') +
    ')\\b',
  'giu',
);
const NUMBER_WORDS = /\b(one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|fifty|hundred|thousand|dozen)\b/giu;
const DIGITS = /\d[\d,.]*/gu;
const CAPITALISED = /^[\p{Lu}][\p{L}'’-]*$/u;

export const wordsOf = (text: string): string[] => text.split(/\s+/).filter(Boolean);
export const countWords = (text: string): number => wordsOf(text).length;

/** Sentences of a text, split at . ! ? … and line breaks, abbreviations like "Mr." kept whole. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\n+/)) {
    let current = '';
    for (const token of wordsOf(line)) {
      current = current ? `${current} ${token}` : token;
      const bare = token.replace(/["'”’)\]]+$/u, '');
      const ends = /[.!?…]$/u.test(bare) && !ABBREVIATIONS.has(bare.replace(/\.$/, '').toLowerCase());
      if (ends) {
        out.push(current);
        current = '';
      }
    }
    if (current) out.push(current);
  }
  return out;
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
    if (stripPrefix && m.role === 'summary' && content.startsWith(stripPrefix)) content = content.slice(stripPrefix.length);
    const speaker = m.speaker?.trim() || ROLE_LABELS[m.role] || null;
    for (const text of splitSentences(content)) out.push({ text, order: out.length, speaker });
  }
  return out;
}

/** The `max` best sentences (at least 2 when there are 2), back in transcript order, duplicates dropped. */
export function pickKeySentences(sentences: Sentence[], max = 3): Sentence[] {
  const seen = new Set<string>();
  const unique = sentences.filter((s) => {
    const key = s.text.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const ranked = unique
    .map((s) => ({ s, score: scoreSentence(s.text) }))
    .sort((a, b) => b.score - a.score || a.s.order - b.s.order);
  const picked = ranked.filter((r, i) => i < 2 || (i < max && r.score > 0)).slice(0, max);
  return picked.map((r) => r.s).sort((a, b) => a.order - b.order);
}

const MAX_SENTENCE_WORDS = 40;

/** Cuts text to `max` words, marking the cut with "…". */
export function capWords(text: string, max: number): string {
  const words = wordsOf(text);
  return words.length <= max ? words.join(' ') : `${words.slice(0, max).join(' ').replace(/[,;:]+$/, '')}…`;
}

/** Picked sentences as prose: "Mira: …" when the speaker changes, each sentence closed with punctuation. */
export function renderSentences(sentences: Sentence[]): string {
  let lastSpeaker: string | null = null;
  return sentences
    .map((s) => {
      let text = capWords(s.text, MAX_SENTENCE_WORDS);
      if (!/[.!?…]["'”’)]*$/u.test(text)) text += '.';
      const prefix = s.speaker && s.speaker !== lastSpeaker && !text.startsWith(s.speaker) ? `${s.speaker}: ` : '';
      lastSpeaker = s.speaker;
      return prefix + text;
    })
    .join(' ');
}
