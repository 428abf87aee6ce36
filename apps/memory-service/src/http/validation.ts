import { DomainError, ID_PATTERN } from '@app/common';
import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * Ids naming an Object.prototype member ("constructor", "toString", …) would read inherited functions
 * out of the domain's id-keyed maps (a 500 found by the fuzzer), so they are refused at the door.
 */
const RESERVED_IDS: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));
const ID_RULE =
  'must match ^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$ and not be a reserved name (constructor, toString, valueOf, …)';
const isId = (value: unknown): value is string =>
  typeof value === 'string' && ID_PATTERN.test(value) && !RESERVED_IDS.has(value);

export const idSchema = z.string().refine(isId, ID_RULE);

/** Memory ids are `<campaign>:<triggerVersion>:<scope>:<subject>`: longer than a plain id may be. */
export const memoryIdSchema = z.string().min(1).max(600);

/** NUL cannot be stored by PostgreSQL text/jsonb and an unpaired surrogate is not Unicode: both are refused. */
// eslint-disable-next-line no-control-regex -- refusing NUL is the point of this pattern
const BAD_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** C0/C1 controls (newline and tab included) and the Unicode line and paragraph separators. */
const CONTROL = /[\p{Cc}\u2028\u2029]/u;
/** The problem code of a text that must be a single line (DESIGN §8): names, speakers, titles, keys. */
export const INVALID_TEXT = 'INVALID_TEXT';
const invalidText = { message: 'must be a single line without control characters', params: { code: INVALID_TEXT } };

/** True when `s` holds a control character or a line break: printed in a context, it could forge a section. */
export const hasControl = (s: string): boolean => CONTROL.test(s);

/**
 * A name, speaker, title or alias that contexts print: trimmed, 1–`max` characters, a single line. A control
 * character is 400 INVALID_TEXT, so a speaker cannot forge a `## Campaign Bible` block in someone's context.
 */
export const singleLine = (max: number) =>
  z
    .string()
    .refine((v) => !hasControl(v), invalidText)
    .transform((v) => v.trim())
    .pipe(z.string().min(1).max(max));

/** Refinement for records whose keys are printed (stat labels, snapshot keys): each key a single line. */
export const keysSingleLine = [(r: object) => !Object.keys(r).some(hasControl), invalidText] as const;

/** The code of a failed validation: INVALID_TEXT when any issue is one, else `fallback`. */
export function issueCode(issues: ReadonlyArray<unknown>, fallback: string): string {
  return issues.some((i) => (i as { params?: { code?: string } }).params?.code === INVALID_TEXT)
    ? INVALID_TEXT
    : fallback;
}

// Date.parse alone took "1" or "March 7" as dates; require the ISO 8601 shape (date, optional time and zone).
const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2}))?)?$/i;

/** True for an ISO 8601 date-time that names a real calendar instant: 2026-02-31 and 24:61 are not dates. */
export function isCalendarTime(s: string): boolean {
  const m = ISO_TIME.exec(s);
  if (!m || Number.isNaN(Date.parse(s))) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return false;
  const [hour, minute, second, zoneHour, zoneMinute] = [m[4], m[5], m[6], m[7], m[8]].map((v) => Number(v ?? 0));
  return hour <= 23 && minute <= 59 && second <= 59 && zoneHour <= 23 && zoneMinute <= 59;
}

/** An ISO 8601 date-time (≤ 40 characters) that exists on the calendar. */
export const isoTimeSchema = z
  .string()
  .max(40)
  .refine(isCalendarTime, 'must be an ISO 8601 date-time that exists on the calendar');

/**
 * Paths of strings (values or keys) holding NUL or unpaired surrogates; iterative, so deep input cannot overflow the
 * stack.
 */
export function badTextPaths(value: unknown, limit = 20): string[] {
  const found: string[] = [];
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length && found.length < limit) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (BAD_TEXT.test(v)) found.push(path || '(root)');
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => stack.push([x, path ? `${path}.${i}` : String(i)]));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (BAD_TEXT.test(k)) found.push(path ? `${path}.(key)` : '(key)');
        stack.push([x, path ? `${path}.${k}` : k]);
      }
    }
  }
  return found;
}

/** Parses input with a schema, or throws a 400 listing every problem. */
export function parse<S extends z.ZodType>(schema: S, value: unknown, code = 'VALIDATION_FAILED'): z.infer<S> {
  const result = schema.safeParse(value);
  const errors = result.success
    ? badTextPaths(result.data).map((path) => ({
        path,
        message: 'must not contain NUL characters or unpaired UTF-16 surrogates',
      }))
    : result.error.issues
        .slice(0, 20)
        .map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message }));
  if (result.success && errors.length === 0) return result.data;
  if (!result.success) code = issueCode(result.error.issues, code);
  throw new DomainError(
    'invalid',
    code,
    `invalid request: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
    errors,
  );
}

/** Path ids are checked before anything else. */
export function pathId(value: unknown, name: string): string {
  if (isId(value)) return value;
  throw new DomainError('invalid', 'INVALID_ID', `${name} ${ID_RULE}`);
}

/** `If-Match: 7` (quotes and W/ tolerated) → 7. */
/**
 * If-Match: `<version>` or `<timeline>:<version>` (DESIGN §10), quoted or not, `W/` tolerated; what the
 * writes answer as `ETag: "<timeline>:<version>"` is accepted as it is.
 */
export function ifMatch(header: string | string[] | undefined): { version: number; timeline?: number } | undefined {
  if (header === undefined) return undefined;
  const raw = Array.isArray(header) ? header[0] : header;
  // Quotes must be balanced: `"7` is malformed, not 7.
  const m = /^\s*(?:W\/)?(?:"(?:(\d{1,9}):)?(\d{1,9})"|(?:(\d{1,9}):)?(\d{1,9}))\s*$/.exec(raw);
  if (!m)
    throw new DomainError(
      'invalid',
      'INVALID_IF_MATCH',
      'If-Match must be a campaign version number or "<timeline>:<version>"',
    );
  const timeline = m[1] ?? m[3];
  return { version: Number(m[2] ?? m[4]), ...(timeline === undefined ? {} : { timeline: Number(timeline) }) };
}

const KEY = /^[\x21-\x7e]{1,200}$/;

export function idempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const raw = Array.isArray(header) ? header[0] : header;
  if (!KEY.test(raw))
    throw new DomainError(
      'invalid',
      'INVALID_IDEMPOTENCY_KEY',
      'Idempotency-Key must be 1–200 visible ASCII characters',
    );
  return raw;
}

/** Hash of method, path and the canonical body: "same key, same request". */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${canonical(body)}`)
    .digest('hex');
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

/**
 * Integer query parameter within bounds; absent → default. Query strings are text, so it is parsed here,
 * yet documented as what it means (an integer with its bounds) so generated clients take a number.
 */
export const queryInt = (min: number, max: number) =>
  z
    .string()
    .refine((s) => /^-?\d{1,10}$/.test(s), 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .meta({ type: 'integer', minimum: min, maximum: max });
