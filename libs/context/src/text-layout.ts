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

/**
 * The tokens of a list layout (not a timeline) counted `tokens` before `gone` (in their order) left `entries` at
 * `index`, from what changed: a group header depends on its entry and the one before only, so a drop costs its
 * entries and the headers around them, not a recount of the section (which made dropping most of a 1,000-message
 * window quadratic).
 */
export function listTokensAfterDrop(
  entries: SectionEntry[],
  index: number,
  gone: SectionEntry[],
  tokens: number,
  headerTokens: (header: string) => number,
): number {
  const header = (e: SectionEntry | undefined, prev: SectionEntry | undefined) =>
    e !== undefined && e.group !== undefined && e.group !== prev?.group ? headerTokens(groupHeader(e.group)) : 0;
  const before = entries[index - 1];
  const next = entries[index];
  let removed = 0;
  let prev = before;
  for (const e of gone) {
    removed += (e.tokens ?? 0) + header(e, prev);
    prev = e;
  }
  return tokens - removed - header(next, prev) + header(next, before);
}

/**
 * The tokens `listTokensAfterDrop` takes away when a list's first entry `e` goes and `next` becomes first: its own,
 * and its group's header when `next` starts another group (within one group the header just moves to `next`).
 */
export function firstDropTokens(e: SectionEntry, next: SectionEntry, headerTokens: (header: string) => number): number {
  return (e.tokens ?? 0) + (e.group !== undefined && next.group !== e.group ? headerTokens(groupHeader(e.group)) : 0);
}
