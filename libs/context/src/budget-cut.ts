import { ComposedSection, DroppedEntry, SectionEntry } from './context.types';
import { leastRecentlyUsed } from './glossary-budget';

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
}
