import { DROP_REASONS, DroppedEntry } from './context.types';
import { TokenCounter } from './token-counter.port';

/** §8: the text trailer is at most this many tokens. */
export const TRAILER_MAX_TOKENS = 40;

/** The text form's last line and what it costs; its tokens are part of `used`. */
export interface Trailer {
  line: string;
  tokens: number;
}

/**
 * §8 the small counted trailer: `<!-- context: used/budget tokens; dropped N (budget K, duplicate D) -->` — counts per
 * reason in a fixed order, never refs (the JSON form lists those), so its length does not grow with what was dropped.
 */
export function trailerLine(used: number, budget: number, counts: ReadonlyMap<string, number>, over: boolean): string {
  const parts = DROP_REASONS.filter((r) => (counts.get(r) ?? 0) > 0).map((r) => `${r} ${counts.get(r)}`);
  const total = [...counts.values()].reduce((n, c) => n + c, 0);
  const reasons = parts.length ? ` (${parts.join(', ')})` : '';
  return `<!-- context: ${used}/${budget} tokens; dropped ${total}${reasons}${over ? '; over budget' : ''} -->`;
}

/** Drops per reason. */
export function dropCounts(dropped: readonly Pick<DroppedEntry, 'reason'>[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const d of dropped) counts.set(d.reason, (counts.get(d.reason) ?? 0) + 1);
  return counts;
}

/** What the trailer adds to the text: the blank line that separates it and the line itself. */
export const trailerTokens = (counter: TokenCounter, line: string) => counter.count(`\n${line}\n`);

/**
 * Room the trailer is given before the budget is met: the longest it can become once fitting is done — `used` as large
 * as the budget, every entry (and every drop already made) dropped, under every reason that may still occur.
 */
export function trailerReserve(counter: TokenCounter, budget: number, drops: number, reasons: Set<string>): number {
  const line = trailerLine(budget, budget, new Map([...reasons].map((r) => [r, drops])), true);
  return Math.min(TRAILER_MAX_TOKENS, trailerTokens(counter, line));
}

/**
 * The trailer once the content is fitted: its own tokens count in the `used` it prints, so the number is settled by
 * trying until line and count agree (a digit more or less; a few rounds at most).
 */
export function settleTrailer(
  counter: TokenCounter,
  content: number,
  budget: number,
  dropped: readonly DroppedEntry[],
): Trailer & { used: number } {
  const counts = dropCounts(dropped);
  let tokens = 0;
  for (let round = 0; round < 6; round++) {
    const used = content + tokens;
    const line = trailerLine(used, budget, counts, used > budget);
    const next = trailerTokens(counter, line);
    if (next === tokens) return { line, tokens, used };
    tokens = Math.max(tokens, next);
  }
  const line = trailerLine(content + tokens, budget, counts, content + tokens > budget);
  return { line, tokens, used: content + tokens };
}
