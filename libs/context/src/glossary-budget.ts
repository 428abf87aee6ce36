import { SectionEntry } from './context.types';

/** §13: the share of a context's budget the Glossary keeps when GLOSSARY_MAX_TOKENS is unset. */
export const GLOSSARY_BUDGET_SHARE = 0.2;

/** The Glossary tokens a context of `budget` never drops (GLOSSARY_MAX_TOKENS, else 20 % of the budget). */
export function glossaryRoom(budget: number, glossaryMaxTokens: number | null): number {
  return glossaryMaxTokens ?? Math.floor(budget * GLOSSARY_BUDGET_SHARE);
}

const WORD = /[\p{L}\p{N}]+/gu;
const wordsOf = (text: string) => text.toLowerCase().match(WORD) ?? [];

/**
 * Moves each Glossary entry's `usedAt` to the newest Recent Message that holds every word of its term, when that is
 * later than its coining. One pass over the messages' words (a map of each word's newest use), then one look-up per
 * term word: linear, however many terms and messages.
 */
export function markGlossaryUse(glossary: SectionEntry[], recent: SectionEntry[]): void {
  const newest = new Map<string, string>();
  for (const m of recent) {
    if (!m.createdAt) continue;
    for (const w of wordsOf(m.body ?? m.text)) if ((newest.get(w) ?? '') < m.createdAt) newest.set(w, m.createdAt);
  }
  for (const e of glossary) {
    const words = wordsOf(e.ref);
    if (words.length === 0) continue;
    // A message that uses the term holds all its words: no later than the least recent of their newest uses.
    // Starts above every date; the first word's use replaces it.
    let last: string | undefined = '\uffff';
    for (const w of words) {
      const seen = newest.get(w);
      last = seen === undefined || last === undefined ? undefined : seen < last ? seen : last;
    }
    if (last !== undefined && last > (e.usedAt ?? '')) e.usedAt = last;
  }
}

/** The index of the least recently used entry (no use known: first), the first of equals (alphabetical). */
export function leastRecentlyUsed(entries: SectionEntry[]): number {
  let best = 0;
  for (let i = 1; i < entries.length; i++) if ((entries[i].usedAt ?? '') < (entries[best].usedAt ?? '')) best = i;
  return best;
}
