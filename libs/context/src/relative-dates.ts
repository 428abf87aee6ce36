import { toDay } from './format';

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
};
const COUNT = `(\\d{1,2}|${Object.keys(NUMBERS).join('|')})`;
const DAY = 24 * 60 * 60 * 1000;

/**
 * The expressions annotated, longest first. "the last week" / "over the last year" (a span up to now, not a calendar
 * week or year) and vague counts ("a few days ago") are left alone: a wrong date is worse than none.
 */
const RELATIVE = new RegExp(
  [
    `(?<daybefore>(?:the\\s+)?day\\s+before\\s+yesterday)`,
    `(?<yesterday>yesterday|last\\s+night)`,
    `(?<tomorrow>tomorrow)`,
    `(?<ago>${COUNT}\\s+(day|week|month|year)s?\\s+ago)`,
    `(?<!\\bthe\\s)(?<shift>(last|next|this\\s+past)\\s+(week|weekend|month|year|${WEEKDAYS.join('|')}))`,
    // A duration up to now: "I've had them for 3 years", "seven years now" (after a present perfect, or with "now").
    // The look-behind follows "for" so that it runs only where "for" is, not at every word (issue 29: linear scans).
    `(?<since>for(?<=\\b(?:'ve|have|has)\\s+(?:\\w+\\s+){0,8}?for)\\s+(?:about\\s+)?${COUNT}\\s+(month|year)s?` +
      `(?:\\s+now)?)`,
    `(?<sincenow>(?:for\\s+(?:about\\s+)?)?${COUNT}\\s+(month|year)s?\\s+now)`,
  ]
    .map((p) => `\\b${p}\\b`)
    .join('|'),
  'giu',
);

/** The most expressions of one message that are looked at (annotated or not); the rest of the text is left as is. */
export const MAX_DATE_MATCHES = 16;
/** An expression already followed by its date ("yesterday [7 May 2023]") is left alone. */
const ANNOTATED = /\s*\[/uy;

/**
 * A message's relative time expressions followed by the absolute story date they name, computed from the message's
 * `at` (its story time, UTC): `yesterday [7 May 2023]`, `two days ago [10 July 2023]`, `last Friday [14 July 2023]`,
 * `last week [week of 29 May 2023]`, `next month [June 2023]`, `last year [2022]`, and a duration up to now
 * (`I've had them for 3 years [since 2020]`, `seven years now [since 2016]`). A game master reading an old line
 * out of its day needs the date, not "yesterday". Text already annotated, or an `at` that is no date, comes back as
 * it is.
 */
export function annotateRelativeDates(text: string, at: string | undefined): string {
  if (at === undefined) return text;
  const now = new Date(at);
  if (Number.isNaN(now.getTime())) return text;
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  let out = '';
  let from = 0;
  RELATIVE.lastIndex = 0;
  // §13: at most MAX_DATE_MATCHES expressions a message, then the scan stops: "two days ago" × 16,000 characters
  // cost one scan of the text, not a date per phrase.
  for (let n = 0; n < MAX_DATE_MATCHES; n++) {
    const m = RELATIVE.exec(text);
    if (!m) break;
    const end = m.index + m[0].length;
    ANNOTATED.lastIndex = end;
    if (ANNOTATED.test(text)) continue;
    const date = resolve(m[0].toLowerCase().replace(/\s+/gu, ' '), day);
    if (!date) continue;
    out += `${text.slice(from, end)} [${date}]`;
    from = end;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** The absolute date one matched expression names, relative to `day` (midnight UTC, ms). */
function resolve(expr: string, day: number): string | null {
  if (expr.endsWith('day before yesterday')) return dayOf(day - 2 * DAY);
  if (expr === 'yesterday' || expr === 'last night') return dayOf(day - DAY);
  if (expr === 'tomorrow') return dayOf(day + DAY);
  const since = /^(?:for )?(?:about )?(\S+) (month|year)s?(?: now)?$/u.exec(expr);
  if (since && (expr.startsWith('for ') || expr.endsWith(' now'))) {
    const start = unitAt(since[2], -(NUMBERS[since[1]] ?? Number(since[1])), day);
    return start && `since ${start}`;
  }
  const ago = /^(\S+) (day|week|month|year)s? ago$/u.exec(expr);
  if (ago) {
    const n = NUMBERS[ago[1]] ?? Number(ago[1]);
    return unitAt(ago[2], -n, day);
  }
  const shift = /^(last|next|this past) (\S+)$/u.exec(expr);
  if (!shift) return null;
  const sign = shift[1] === 'next' ? 1 : -1;
  const weekday = WEEKDAYS.indexOf(shift[2]);
  if (weekday >= 0) {
    // The nearest such day strictly before (after) the message's day.
    const today = new Date(day).getUTCDay();
    const back = (today - weekday + 7) % 7 || 7;
    const ahead = (weekday - today + 7) % 7 || 7;
    return dayOf(day + (sign < 0 ? -back : ahead) * DAY);
  }
  if (shift[2] === 'weekend') {
    // The Saturday of the nearest whole weekend before (after) the message's day.
    const today = new Date(day).getUTCDay();
    const saturday = sign < 0 ? day - ((today + 1) % 7 || 7) * DAY : day + ((6 - today + 7) % 7 || 7) * DAY;
    const back = sign < 0 && today === 0 ? saturday - 7 * DAY : saturday;
    return `weekend of ${dayOf(back)}`;
  }
  return unitAt(shift[2], sign, day);
}

/** `n` days / weeks / months / years from `day`: a day, the week's Monday, a month, a year. */
function unitAt(unit: string, n: number, day: number): string | null {
  if (!Number.isFinite(n) || n === 0) return null;
  const d = new Date(day);
  if (unit === 'day') return dayOf(day + n * DAY);
  if (unit === 'week') {
    const monday = day + 7 * n * DAY - ((d.getUTCDay() + 6) % 7) * DAY;
    return `week of ${dayOf(monday)}`;
  }
  if (unit === 'month') {
    const month = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1));
    return toDay(month.toISOString()).replace(/^1 /u, '');
  }
  return String(d.getUTCFullYear() + n);
}

const dayOf = (ms: number) => toDay(new Date(ms).toISOString());

/**
 * A message's relative dates annotated by its own `at` (annotateRelativeDates), only where that `at` is a date the
 * context may print (§8 story time): the client's, under a clock that prints dates.
 */
export function relativeDatesOf(text: string, m: { at: string; atFilled?: boolean }, clock: string): string {
  return m.atFilled || clock === 'none' ? text : annotateRelativeDates(text, m.at);
}
