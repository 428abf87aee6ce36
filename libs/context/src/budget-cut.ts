import { ComposedSection, DroppedEntry, SectionEntry } from './context.types';
import { leastRecentlyUsed } from './glossary-budget';
import { firstDropTokens } from './text-layout';

/** A Recall hit the budget dropped, with its drop report (the refill may take both back). */
export interface Gone {
  entry: SectionEntry;
  report: DroppedEntry;
}

/** Recent and memories lose their oldest entry first, the Glossary its least recently used; recall its lowest rank. */
export function pickVictim(members: ComposedSection[]): { section: ComposedSection; index: number } | null {
  let best: { section: ComposedSection; index: number; at: string } | null = null;
  for (const section of members) {
    if (section.entries.length === 0) continue;
    if (section.key === 'recall') return { section, index: section.entries.length - 1 };
    const index = section.key === 'glossary' ? leastRecentlyUsed(section.entries) : 0;
    const at = (section.key === 'glossary' ? section.entries[index].usedAt : section.entries[0].createdAt) ?? '';
    if (!best || at < best.at) best = { section, index, at };
  }
  return best;
}

/** Budget drops: keeps `used` and the drop reports in step, and remembers the Recall hits taken (for the refill). */
export class Cut {
  /** Recall hits the budget took, each with its drop report. */
  readonly recallGone: Gone[] = [];

  constructor(
    public used: number,
    private readonly dropped: DroppedEntry[],
    private readonly recall: ComposedSection | undefined,
    /** The section's tokens once `gone` (in their order) left its entries at `index`. */
    private readonly tokensAfter: (s: ComposedSection, index: number, gone: SectionEntry[]) => number,
  ) {}

  /**
   * Drops `count` entries from `index` on, the last first. Each is reported with its own tokens; what else went with
   * them (group headers, the heading when the section empties) counts on the last reported, so drops and `used` add
   * up.
   */
  drop(section: ComposedSection, index: number, count = 1): void {
    const taken = section.entries.splice(index, count);
    const before = section.tokens;
    section.tokens = this.tokensAfter(section, index, taken);
    const gone = taken.reverse();
    this.used -= before - section.tokens;
    const alongside = before - section.tokens - gone.reduce((n, e) => n + (e.tokens ?? 0), 0);
    gone.forEach((e, i) => {
      const tokens = (e.tokens ?? 0) + (i === gone.length - 1 ? alongside : 0);
      const report: DroppedEntry = { section: section.key, ref: e.ref, tokens, reason: 'budget' };
      this.dropped.push(report);
      if (section === this.recall) this.recallGone.push({ entry: e, report });
    });
  }

  /** Drops made elsewhere (`dropOldest`, not of Recall): `removed` tokens less used, their reports in order. */
  report(removed: number, reports: DroppedEntry[]): void {
    this.used -= removed;
    for (const r of reports) this.dropped.push(r);
  }
}

/**
 * `cut.drop(section, 0)` repeated while the budget needs room and more than `keep` entries (at least one) stay, for a
 * list section (no timeline): the same entries, reports and counts in the same order, with one splice. A drop costs
 * what `listTokensAfterDrop` would take for it (`firstDropTokens`); dropping most of a 1,000-message window one
 * splice at a time moved the whole array and allocated per drop (issue 29).
 * Returns how many went; the section's last entry is left to `drop` (emptying it also takes its heading).
 */
export function dropOldest(
  cut: Cut,
  section: ComposedSection,
  keep: number,
  budget: number,
  headerTokens: (header: string) => number,
): number {
  // Recent Messages only: the other sections lose entries by rank, by use, or across sections (pickVictim).
  if (section.key !== 'recent' || section.timeline === true) return 0;
  const entries = section.entries;
  const reports: DroppedEntry[] = [];
  let removed = 0;
  while (cut.used - removed > budget && entries.length - reports.length > Math.max(keep, 1)) {
    const e = entries[reports.length];
    const tokens = firstDropTokens(e, entries[reports.length + 1], headerTokens);
    reports.push({ section: section.key, ref: e.ref, tokens, reason: 'budget' });
    removed += tokens;
  }
  if (reports.length === 0) return 0;
  entries.splice(0, reports.length);
  section.tokens -= removed;
  cut.report(removed, reports);
  return reports.length;
}
