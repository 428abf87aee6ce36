import { sentenceKey, splitSentences } from '@app/summarizer';

/** Labels a summary puts in front of a sentence (`At The Inn: `, `Mira Vell: `), not part of what it says. */
export const LABELS = /^(?:[^\s:.!?"“”()[\]][^:.!?"“”()[\]]{0,60}?:\s+)+/u;

/** A sentence as the no-sentence-twice rule compares it: its labels left out, case- and whitespace-insensitive. */
export const sentenceKeyOf = (sentence: string): string => sentenceKey(sentence.replace(LABELS, ''));

/** A text's sentences (splitSentences) and each one's comparison key (sentenceKeyOf), index for index. */
export interface SplitText {
  readonly sentences: readonly string[];
  readonly keys: readonly string[];
}

/** The memo holds about this many characters (texts, their sentences and keys), then starts over. */
const MEMO_MAX_CHARS = 8_000_000;
/** warm() gives the event loop back after this much splitting. */
const SLICE_MS = 8;

/**
 * The sentences and keys of each text the no-sentence-twice rule reads, remembered per text like token counts: a
 * message or bible part served in every context is split once per process, not on every read (16,000-character
 * entries made that the longest synchronous stretch of a context build).
 */
export class SentenceMemo {
  private readonly memo = new Map<string, SplitText>();
  private memoChars = 0;

  split(text: string): SplitText {
    const known = this.memo.get(text);
    if (known !== undefined) return known;
    const sentences = splitSentences(text);
    const split: SplitText = { sentences, keys: sentences.map(sentenceKeyOf) };
    this.remember(text, split);
    return split;
  }

  /** Splits texts ahead into the memo, yielding to the event loop between texts once a slice of work is spent. */
  async warm(texts: Iterable<string>): Promise<void> {
    let sliceStart = performance.now();
    for (const text of texts) {
      if (this.memo.has(text)) continue;
      this.split(text);
      if (performance.now() - sliceStart >= SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
  }

  private remember(text: string, split: SplitText): void {
    // The text, its sentences and their keys: about three times the text.
    const chars = 3 * text.length;
    if (this.memoChars + chars > MEMO_MAX_CHARS) {
      this.memo.clear();
      this.memoChars = 0;
    }
    this.memo.set(text, split);
    this.memoChars += chars;
  }
}
