import { PlayerStat } from '@app/campaign';

export interface Hud {
  text: string;
  tokens: number;
  /** Stat labels left out for the budget, from the end. */
  dropped: { ref: string; tokens: number }[];
}

const statText = (s: PlayerStat) => `${s.label} ${String(s.value)}`.replace(/\s+/g, ' ').trim();

/** `HUD: <label> <value> • …` in the stats' order, within `maxTokens` for the whole line. */
export function renderHud(stats: PlayerStat[], maxTokens: number, count: (text: string) => number): Hud {
  const line = (n: number) => `HUD: ${stats.slice(0, n).map(statText).join(' • ')}`.trimEnd();
  let n = stats.length;
  while (n > 0 && count(line(n)) > maxTokens) n--;
  const dropped = stats.slice(n).map((s) => ({ ref: s.label, tokens: count(statText(s)) }));
  const text = line(n);
  return { text, tokens: count(text), dropped };
}
