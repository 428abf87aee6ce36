import { SectionEntry } from './context.types';

/** One printed line of a section's body in the text form: a group header or an entry. */
export type LayoutLine = { header: string } | { entry: SectionEntry };

/** `### round 2 · 8 May 2023` — the line a run of entries of one group is printed under. */
export const groupHeader = (group: string) => `### ${group}`;

/**
 * Walks a section's body as the text form prints it: a `timeline` section (Recall) prints its undated-by-group entries
 * first in their stored order, then the grouped ones by `seq` (oldest first); a run of entries of the same group shares
 * one header, so a day is written once, not once per line.
 */
function walkLayout(
  entries: SectionEntry[],
  timeline: boolean,
  onHeader: (header: string) => void,
  onEntry: (entry: SectionEntry) => void,
): void {
  let group: string | undefined;
  const visit = (entry: SectionEntry) => {
    if (entry.group !== undefined && entry.group !== group) onHeader(groupHeader(entry.group));
    group = entry.group;
    onEntry(entry);
  };
  if (!timeline) {
    for (const entry of entries) visit(entry);
    return;
  }
  const dated: SectionEntry[] = [];
  for (const entry of entries) {
    if (entry.seq === undefined) visit(entry);
    else dated.push(entry);
  }
  dated.sort((a, b) => a.seq! - b.seq!);
  for (const entry of dated) visit(entry);
}

/** The lines a section's body prints in the text form, group headers included (walkLayout). */
export function layoutEntries(entries: SectionEntry[], timeline = false): LayoutLine[] {
  const lines: LayoutLine[] = [];
  walkLayout(
    entries,
    timeline,
    (header) => lines.push({ header }),
    (entry) => lines.push({ entry }),
  );
  return lines;
}

/**
 * The tokens of what `layoutEntries` prints, counted without building the lines (the composer recounts a section after
 * every entry the budget drops), so the budget sees exactly what the text form prints.
 */
export function layoutTokens(
  entries: SectionEntry[],
  timeline: boolean,
  headerTokens: (header: string) => number,
): number {
  let tokens = 0;
  walkLayout(
    entries,
    timeline,
    (header) => (tokens += headerTokens(header)),
    (entry) => (tokens += entry.tokens ?? 0),
  );
  return tokens;
}
