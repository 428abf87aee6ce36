import { SectionKey } from './context.types';
import { LABELS, SplitText } from './sentence-memo';

/** The no-sentence-twice rule's reading of an entry line (the composer's dedupe, DESIGN §8). */

/**
 * A memory line's fixed part (`- 2026-05-01 10:15 — `, a Recall hit's `- [when] Memory (…): `) and its summary; a
 * glossary line's `- <term>: ` and its definition.
 */
export function splitEntryLine(text: string, key: SectionKey): { prefix: string; summary: string } {
  const term = key === 'glossary' ? /^- [^:]{1,200}?: /u.exec(text) : null;
  if (term) return { prefix: term[0], summary: text.slice(term[0].length) };
  // A date in story time is up to 80 characters; with clock `none` a line is `- <summary>`.
  const m = /^(- \[[^\]]*\] Memory \([^)]*\): |- \d{4}-\d{2}-\d{2} \d{2}:\d{2} — |- [^—]{1,90} — |- )/u.exec(text);
  return m ? { prefix: m[1], summary: text.slice(m[1].length) } : { prefix: '', summary: text };
}

/**
 * The sentences not yet held (adding them to `held`). When the first sentence goes, its first label — the entry's
 * header, "At The Inn: " or "Mira's memory of The Inn: " — moves to the next kept one; a speaker's label never moves,
 * since the next sentence may be someone else's (a summary names a speaker only when it changes).
 */
export function keepNewSentences({ sentences, keys }: SplitText, held: Set<string>): string[] {
  const kept: string[] = [];
  let header = '';
  sentences.forEach((sentence, i) => {
    const key = keys[i];
    if (key === '' || held.has(key)) {
      if (i === 0) header = /^[^:]{1,80}?:\s+/u.exec(LABELS.exec(sentence)?.[0] ?? '')?.[0] ?? '';
      return;
    }
    held.add(key);
    kept.push(header && kept.length === 0 && !sentence.startsWith(header) ? `${header}${sentence}` : sentence);
  });
  return kept;
}
