/** How old something is: in ticks when both ticks are known, else by wall clock. */
export type Age = { kind: 'ticks'; ticks: number } | { kind: 'wall'; seconds: number };

export function ageOf(tick: number | null, capturedAt: string, currentTick: number | null, now: Date): Age {
  if (tick !== null && currentTick !== null) return { kind: 'ticks', ticks: Math.max(0, currentTick - tick) };
  return { kind: 'wall', seconds: Math.max(0, Math.floor((now.getTime() - Date.parse(capturedAt)) / 1000)) };
}

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** Wall-clock span: seconds under a minute, minutes under two hours, then hours. */
export function wallSpan(seconds: number): string {
  if (seconds < 60) return plural(seconds, 'second');
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return plural(minutes, 'minute');
  return plural(Math.floor(minutes / 60), 'hour');
}

/**
 * `just now`, `N ticks ago` (with `(N×tickSeconds seconds)` when `withSeconds`), or
 * `N seconds/minutes ago` by wall clock.
 */
export function recency(age: Age, tickSeconds: number, withSeconds = false): string {
  if (age.kind === 'ticks') {
    if (age.ticks === 0) return 'just now';
    const base = `${plural(age.ticks, 'tick')} ago`;
    return withSeconds ? `${base} (${plural(age.ticks * tickSeconds, 'second')})` : base;
  }
  return age.seconds === 0 ? 'just now' : `${wallSpan(age.seconds)} ago`;
}

/** `50 ticks` / `3 minutes`: how old a stale snapshot is. */
export function ageSpan(age: Age): string {
  return age.kind === 'ticks' ? plural(age.ticks, 'tick') : wallSpan(age.seconds);
}
