/** Nearest-rank percentile of unsorted samples (p in 0..100); NaN for no samples. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export const mean = (samples: number[]): number =>
  samples.length ? samples.reduce((a, b) => a + b, 0) / samples.length : NaN;

export const median = (samples: number[]): number => percentile(samples, 50);

/** Rounds for display and JSON: 3 significant digits below 100, integers above. */
export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  if (Math.abs(value) >= 100) return Math.round(value);
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** A history size as the tables name it: 10k, 100k, 1M. */
export const sizeLabel = (events: number): string =>
  events >= 1_000_000 ? `${Math.round(events / 1_000_000)}M` : `${Math.round(events / 1000)}k`;

/** a / b rounded, NaN when b is 0. */
export const ratio = (a: number, b: number): number => (b === 0 ? NaN : round(a / b, 3));
