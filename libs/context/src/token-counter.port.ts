import { Tiktoken } from 'js-tiktoken/lite';
import o200k_base from 'js-tiktoken/ranks/o200k_base';

/** Counts tokens of a text. The default is an approximation of the model's own count. */
export interface TokenCounter {
  count(text: string): number;
}
export const TOKEN_COUNTER = Symbol('TOKEN_COUNTER');

// Building the o200k ranks takes over a second, so every counter in the process shares one encoder.
let sharedEncoder: Tiktoken | undefined;

/** js-tiktoken with the o200k_base ranks shipped in the package (no download). */
export class TiktokenCounter implements TokenCounter {
  private readonly encoder = (sharedEncoder ??= new Tiktoken(o200k_base));
  count(text: string): number {
    return text.length === 0 ? 0 : this.encoder.encode(text).length;
  }
}
