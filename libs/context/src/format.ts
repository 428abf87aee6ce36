/** `2026-05-01T10:15:42.000Z` → `2026-05-01 10:15` (to the minute). */
export function toMinute(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return m ? `${m[1]} ${m[2]}` : iso;
}

/** Whitespace oneLine would change: any but a plain space, two spaces in a row, a space at either end. */
const NOT_ONE_LINE = /[^\S ]| {2}|^ | $/;

/**
 * Collapses any whitespace (newlines included) into single spaces. A text already on one line comes back as it is,
 * after one test instead of a replace of every space (16,000-character entries are read on every context build).
 */
export const oneLine = (text: string) => (NOT_ONE_LINE.test(text) ? text.replace(/\s+/g, ' ').trim() : text);

/** The months as a reader writes them (a date's name of its month, and what recall reads in a question). */
export const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** `2023-05-08T13:56:00.000Z` → `8 May 2023` (UTC): how a prompt, and a reader, names a day. */
export function toDay(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T/.exec(iso);
  return m ? `${Number(m[3])} ${MONTH_NAMES[Number(m[2]) - 1]} ${m[1]}` : iso;
}
