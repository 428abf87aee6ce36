import { Tiktoken } from 'js-tiktoken/lite';
import o200k_base from 'js-tiktoken/ranks/o200k_base';

/** Counts tokens of a text. The default is an approximation of the model's own count. */
export interface TokenCounter {
  count(text: string): number;
}
export const TOKEN_COUNTER = Symbol('TOKEN_COUNTER');

// Building the o200k ranks takes over a second, so every counter in the process shares one encoder.
let sharedEncoder: Tiktoken | undefined;

/** Texts up to this long are remembered with their count: the same entries come back in request after request. */
const MEMO_MAX_CHARS = 2_000;
const MEMO_MAX_ENTRIES = 10_000;

/**
 * js-tiktoken with the o200k_base ranks shipped in the package (no download). Special-token strings in the text
 * ("<|endoftext|>") count as the plain text they are: players write them, and the encoder's default is to throw.
 */
export class TiktokenCounter implements TokenCounter {
  private readonly encoder = (sharedEncoder ??= new Tiktoken(o200k_base));
  private readonly memo = new Map<string, number>();

  count(text: string): number {
    if (text.length === 0) return 0;
    if (text.length > MEMO_MAX_CHARS) return this.encoder.encode(text, [], []).length;
    let n = this.memo.get(text);
    if (n === undefined) {
      n = this.encoder.encode(text, [], []).length;
      if (this.memo.size >= MEMO_MAX_ENTRIES) this.memo.clear();
      this.memo.set(text, n);
    }
    return n;
  }
}
