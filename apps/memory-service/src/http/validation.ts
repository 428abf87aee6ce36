import { DomainError, ID_PATTERN } from '@app/common';
import { createHash } from 'node:crypto';
import { z } from 'zod';

export const idSchema = z.string().regex(ID_PATTERN, 'must match ^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$');

/** Parses input with a schema, or throws a 400 listing every problem. */
export function parse<S extends z.ZodType>(schema: S, value: unknown, code = 'VALIDATION_FAILED'): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = result.error.issues.slice(0, 20).map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message }));
  throw new DomainError('invalid', code, `invalid request: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
}

/** Path ids are checked before anything else. */
export function pathId(value: unknown, name: string): string {
  if (typeof value === 'string' && ID_PATTERN.test(value)) return value;
  throw new DomainError('invalid', 'INVALID_ID', `${name} must match ^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`);
}

/** `If-Match: 7` (quotes and W/ tolerated) → 7. */
export function ifMatch(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const raw = Array.isArray(header) ? header[0] : header;
  // Quotes must be balanced: `"7` is malformed, not 7.
  const m = /^\s*(?:W\/)?(?:"(\d{1,9})"|(\d{1,9}))\s*$/.exec(raw);
  if (!m) throw new DomainError('invalid', 'INVALID_IF_MATCH', 'If-Match must be a campaign version number');
  return Number(m[1] ?? m[2]);
}

const KEY = /^[\x21-\x7e]{1,200}$/;

export function idempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const raw = Array.isArray(header) ? header[0] : header;
  if (!KEY.test(raw)) throw new DomainError('invalid', 'INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1–200 visible ASCII characters');
  return raw;
}

/** Hash of method, path and the canonical body: "same key, same request". */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${canonical(body)}`).digest('hex');
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

/** Integer query parameter within bounds; absent → default. */
export const queryInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^-?\d{1,10}$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
