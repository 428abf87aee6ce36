import { SectionEntry } from './context.types';

/** One printed line of a section's body in the text form: a group header or an entry. */
export type LayoutLine = { header: string } | { entry: SectionEntry };

/** `### round 2 · 8 May 2023` — the line a run of entries of one group is printed under. */
export const groupHeader = (group: string) => `### ${group}`;

/**
 * The order a section's entries print in the text form, group headers included. A `timeline` section (Recall) prints
 * its undated-by-group entries first in their stored order, then the grouped ones by `seq` (oldest first); a run of
 * entries of the same group shares one header, so a day is written once, not once per line. The composer counts
 * tokens from this same layout, so the budget sees exactly what the text form prints.
 */
export function layoutEntries(entries: SectionEntry[], timeline = false): LayoutLine[] {
  const ordered = timeline
    ? [...entries.filter((e) => e.seq === undefined), ...entries.filter((e) => e.seq !== undefined).sort((a, b) => a.seq! - b.seq!)]
    : entries;
  const lines: LayoutLine[] = [];
  let group: string | undefined;
  for (const entry of ordered) {
    if (entry.group !== undefined && entry.group !== group) lines.push({ header: groupHeader(entry.group) });
    group = entry.group;
    lines.push({ entry });
  }
  return lines;
}
