import { giveBack } from './async-mutex';

/**
 * How long one slice of a large write may hold the event loop (DESIGN §13: a request blocks others ≤ 50 ms; a slice
 * of 8 ms leaves room for a collection or a second slice of another request between two probes).
 */
export const SLICE_TARGET_MS = 8;

export interface SliceOptions {
  /** Items of the first slice (its pace sizes the next ones). */
  first: number;
  /** The time a slice aims at, in ms (default SLICE_TARGET_MS). */
  targetMs?: number;
  /** The fewest items a slice holds (default 1). */
  min?: number;
  /** The most items a slice holds (default all). */
  max?: number;
}

/**
 * Runs `step(lo, hi)` over the items `[0, total)` in consecutive slices, in order, giving the event loop back between
 * two slices (never before the first: a small batch runs at once, as one step). Each slice is sized by the pace the
 * previous one ran at, so it takes about `targetMs` whatever an item costs here (long texts, FTS5 tokenizing, a busy
 * CPU): fixed row counts held the loop 10–60 ms on a loaded machine. A slice grows at most twofold over the last.
 */
export async function inTimedSlices(
  total: number,
  o: SliceOptions,
  step: (lo: number, hi: number) => Promise<unknown>,
): Promise<void> {
  const target = o.targetMs ?? SLICE_TARGET_MS;
  const min = Math.max(1, o.min ?? 1);
  const max = Math.max(min, o.max ?? total);
  let size = Math.min(max, Math.max(min, o.first));
  for (let lo = 0; lo < total;) {
    if (lo > 0) await giveBack();
    const hi = Math.min(total, lo + size);
    const started = performance.now();
    await step(lo, hi);
    const pace = (hi - lo) / Math.max(performance.now() - started, 0.05);
    size = Math.min(max, 2 * size, Math.max(min, Math.floor(pace * target)));
    lo = hi;
  }
}
