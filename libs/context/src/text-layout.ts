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

/**
 * The tokens of what `layoutEntries` prints — entries plus one header per run of a group — counted without
 * building the lines (the composer recounts a section after every entry the budget drops).
 */
export function layoutTokens(entries: SectionEntry[], timeline: boolean, headerTokens: (header: string) => number): number {
  let tokens = 0;
  let group: string | undefined;
  const visit = (entry: SectionEntry) => {
    if (entry.group !== undefined && entry.group !== group) tokens += headerTokens(groupHeader(entry.group));
    group = entry.group;
    tokens += entry.tokens ?? 0;
  };
  if (!timeline) {
    for (const entry of entries) visit(entry);
    return tokens;
  }
  const dated: SectionEntry[] = [];
  for (const entry of entries) {
    if (entry.seq === undefined) visit(entry);
    else dated.push(entry);
  }
  dated.sort((a, b) => a.seq! - b.seq!);
  for (const entry of dated) visit(entry);
  return tokens;
}
