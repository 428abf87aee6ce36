import type * as O200k from 'gpt-tokenizer/cjs/encoding/o200k_base';

/** Counts tokens of a text. The default is an approximation of the model's own count. */
export interface TokenCounter {
  count(text: string): number;
  /**
   * Counts texts ahead into the counter's cache, yielding to the event loop between slices of work, so that a
   * context over long hostile texts never holds the loop for long. Optional: a counter without a cache omits it.
   */
  warm?(texts: Iterable<string>): Promise<void>;
}
export const TOKEN_COUNTER = Symbol('TOKEN_COUNTER');

/**
 * A run of whitespace or of non-whitespace longer than this is counted in pieces of RUN_PIECE characters: BPE
 * merging is quadratic in a piece's length, so one 16,000-character "xxxx…" cost seconds. Normal prose has no run
 * this long, so its count is exactly the encoder's; over a long run the count may differ by a token per piece.
 */
export const RUN_MAX = 96;
const RUN_PIECE = 64;
const LONG_RUN = new RegExp(`\\S{${RUN_MAX + 1},}|\\s{${RUN_MAX + 1},}`, 'g');

/** The cache holds this many characters of counted text (about 16 MB), then starts over. */
const MEMO_MAX_CHARS = 8_000_000;
/** warm() gives the event loop back after this much counting. */
const SLICE_MS = 8;

type Encoding = typeof O200k;
// Loaded on first use: building the o200k ranks takes a few hundred ms that a boot that never counts need not pay.
let encoding: Encoding | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (boot time)
const load = (): Encoding => (encoding ??= require('gpt-tokenizer/cjs/encoding/o200k_base') as Encoding);
/** Special-token strings ("<|endoftext|>") count as the plain text they are: players write them. */
const AS_TEXT = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

/**
 * Where a text is cut so that no piece holds a run longer than RUN_MAX: cuts fall strictly inside long runs
 * (never between a surrogate pair), so the text around a run keeps its own tokenization. Linear in the text.
 */
export function pieceBounds(text: string): number[] {
  const cuts: number[] = [];
  LONG_RUN.lastIndex = 0;
  for (let m = LONG_RUN.exec(text); m !== null; m = LONG_RUN.exec(text)) {
    const end = m.index + m[0].length;
    for (let at = m.index + RUN_PIECE; at < end; at += RUN_PIECE) {
      const c = text.charCodeAt(at - 1);
      cuts.push(c >= 0xd800 && c <= 0xdbff ? at + 1 : at);
    }
  }
  return [0, ...cuts, text.length];
}

/**
 * o200k_base counts from gpt-tokenizer (pure JS, ranks shipped in the package), in time linear in the text: long
 * runs are counted in bounded pieces (pieceBounds). Counts are remembered per text, so an entry served in every
 * context is counted once per process.
 */
export class TiktokenCounter implements TokenCounter {
  private readonly memo = new Map<string, number>();
  private memoChars = 0;

  count(text: string): number {
    if (text.length === 0) return 0;
    const known = this.memo.get(text);
    if (known !== undefined) return known;
    const bounds = pieceBounds(text);
    let n = 0;
    for (let i = 1; i < bounds.length; i++) n += this.piece(text, bounds[i - 1], bounds[i]);
    this.remember(text, n);
    return n;
  }

  async warm(texts: Iterable<string>): Promise<void> {
    let sliceStart = performance.now();
    const breathe = async () => {
      if (performance.now() - sliceStart < SLICE_MS) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    };
    for (const text of texts) {
      if (text.length === 0 || this.memo.has(text)) continue;
      const bounds = pieceBounds(text);
      let n = 0;
      for (let i = 1; i < bounds.length; i++) {
        n += this.piece(text, bounds[i - 1], bounds[i]);
        await breathe();
      }
      this.remember(text, n);
    }
  }

  private piece(text: string, from: number, to: number): number {
    const part = from === 0 && to === text.length ? text : text.slice(from, to);
    return load().countTokens(part, AS_TEXT);
  }

  private remember(text: string, n: number): void {
    if (this.memoChars + text.length > MEMO_MAX_CHARS) {
      this.memo.clear();
      this.memoChars = 0;
    }
    this.memo.set(text, n);
    this.memoChars += text.length;
  }
}
