import { MONTH_NAMES } from '../../format';

const MONTHS = MONTH_NAMES.map((m) => m.toLowerCase());
const MONTH = `(${MONTHS.join('|')})`;
const DAY_MONTH = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}\\b,?\\s*(\\d{4})?`, 'gu');
const MONTH_DAY = new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b,?\\s*(\\d{4})?`, 'gu');
const MONTH_ONLY = new RegExp(`\\b${MONTH}\\b,?\\s*(\\d{4})?`, 'gu');
const DAY_MS = 86_400_000;

/** A date a query names: a day of a month ("13 October 2023", "October 13") or a month ("in June", "July 2023"). */
export interface QueryDate {
  year?: number;
  /** 0–11. */
  month: number;
  day?: number;
}

/** The dates a query names (English month names); "may" counts as a month only with a day or a year beside it. */
export function queryDates(query: string): QueryDate[] {
  const text = query.toLowerCase();
  const year = (y?: string) => (y ? Number(y) : undefined);
  const days = [
    ...[...text.matchAll(DAY_MONTH)].map((x) => ({ day: Number(x[1]), month: MONTHS.indexOf(x[2]), year: year(x[3]) })),
    ...[...text.matchAll(MONTH_DAY)].map((x) => ({ day: Number(x[2]), month: MONTHS.indexOf(x[1]), year: year(x[3]) })),
  ].filter((d) => d.day >= 1 && d.day <= 31);
  if (days.length) return days;
  return [...text.matchAll(MONTH_ONLY)]
    .filter((x) => x[1] !== 'may' || x[2])
    .map((x) => ({ month: MONTHS.indexOf(x[1]), year: year(x[2]) }));
}

/** Whether an ISO time falls on the date (UTC, as messages' `at` are stored). */
export function sameDate(d: QueryDate, iso: string): boolean {
  const at = new Date(iso);
  return (
    !Number.isNaN(at.getTime()) &&
    d.month === at.getUTCMonth() &&
    (d.year === undefined || d.year === at.getUTCFullYear()) &&
    (d.day === undefined || d.day === at.getUTCDate())
  );
}

/**
 * The `at` range to read for a dated query (a day either side, as ISO strings compare); the exact day or month is
 * checked with sameDate (UTC). The date must carry its year.
 */
export function dateRange(d: QueryDate): { from: string; to: string } {
  const year = d.year!;
  const last = d.day === undefined ? Date.UTC(year, d.month + 1, 1) : Date.UTC(year, d.month, d.day + 1);
  const from = new Date(Date.UTC(year, d.month, (d.day ?? 1) - 1)).toISOString().slice(0, 10);
  const to = new Date(last + DAY_MS).toISOString().slice(0, 10);
  return { from, to };
}
