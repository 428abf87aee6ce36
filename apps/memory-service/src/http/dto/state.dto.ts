import { DomainError } from '@app/common';
import { z } from 'zod';
import { hasControl, idSchema, INVALID_TEXT, isoTimeSchema, keysSingleLine, singleLine } from '../validation';
import { LIMITS } from './campaign.dto';

/** Limits of the game-state and world-state routes (DESIGN §5–6). */
export const STATE_LIMITS = {
  factValueChars: 500,
  maxPriority: 1_000_000,
  maxTtlSeconds: 10 * 365 * 24 * 3600,
  stats: 50,
  statLabelChars: 40,
  statValueChars: 100,
  ruleFields: 50,
  ruleActions: 50,
  pathChars: 200,
  /** Nesting levels of a snapshot's content: merging and rendering walk it, and game tools nest a few levels. */
  contentDepth: 64,
  /** Characters of one key in a snapshot's content: keys are printed as `key.sub: value` lines. */
  contentKeyChars: 256,
};

const tick = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const isoTime = isoTimeSchema;
const name = singleLine(LIMITS.nameChars);
const dotPath = z
  .string()
  .max(STATE_LIMITS.pathChars)
  .regex(/^[^.\s]+(\.[^.\s]+)*$/, 'must be a dot path such as ship.hull');

/** True when `value` nests at most `max` objects/arrays deep; iterative, so hostile depth cannot overflow the stack. */
export function depthAtMost(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d + 1 > max) return false;
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return true;
}

/** True when every object key in `value` is at most `max` characters and a single line; iterative. */
export function keysPrintable(value: unknown, max: number): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (!Array.isArray(v) && Object.keys(v).some((k) => k.length > max || hasControl(k))) return false;
    for (const child of Object.values(v)) stack.push(child);
  }
  return true;
}

export const snapshotBody = z.strictObject({
  content: z
    .unknown()
    .refine((v) => v !== undefined, 'is required')
    .refine(
      (v) => depthAtMost(v, STATE_LIMITS.contentDepth),
      `must nest at most ${STATE_LIMITS.contentDepth} levels deep`,
    )
    .refine((v) => keysPrintable(v, STATE_LIMITS.contentKeyChars), {
      message: `keys must be single lines of at most ${STATE_LIMITS.contentKeyChars} characters`,
      params: { code: INVALID_TEXT },
    }),
  tick: tick.optional(),
  capturedAt: isoTime.optional(),
  merge: z.boolean().optional(),
});

export const actionBody = z.strictObject({ action: idSchema, tick: tick.optional() });
export const loginBody = z.strictObject({ agentId: idSchema });

export const toolRuleBody = z.strictObject({
  title: singleLine(200).optional(),
  fields: z.array(dotPath).min(1).max(STATE_LIMITS.ruleFields).optional(),
  invalidatedBy: z.array(idSchema).max(STATE_LIMITS.ruleActions).optional(),
  maxAgeTicks: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
});

export const factBody = z.strictObject({
  value: z.string().trim().min(1).max(STATE_LIMITS.factValueChars),
  ttlSeconds: z.number().int().min(1).max(STATE_LIMITS.maxTtlSeconds).optional(),
  expiresAt: isoTime.optional(),
  priority: z.number().int().min(-STATE_LIMITS.maxPriority).max(STATE_LIMITS.maxPriority).optional(),
});

const statValue = z.union([singleLine(STATE_LIMITS.statValueChars), z.number().finite()]);
export const playerBody = z.strictObject({
  name,
  /** §8 split parties: a location places the player apart from the party; null brings it back. */
  locationId: idSchema.nullable().optional(),
  aliases: z.array(singleLine(LIMITS.aliasChars)).max(LIMITS.aliases).optional(),
  stats: z
    .record(z.string().trim().min(1).max(STATE_LIMITS.statLabelChars), statValue)
    .refine(...keysSingleLine)
    .refine((r) => Object.keys(r).length <= STATE_LIMITS.stats, `at most ${STATE_LIMITS.stats} stats`)
    .optional(),
});

const FACT_TYPE = /^[a-z][a-z0-9_-]{0,39}$/;

/** Fact types are lower-case words (`conflict`, `buff`, `trade_route`). */
export function factType(value: unknown): string {
  if (typeof value === 'string' && FACT_TYPE.test(value)) return value;
  throw new DomainError('invalid', 'INVALID_FACT_TYPE', 'a fact type must match ^[a-z][a-z0-9_-]{0,39}$');
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A `tick` that is present must be a non-negative integer; its own code, before the schema. */
export function checkTick(body: unknown): void {
  if (!isRecord(body) || !('tick' in body)) return;
  const t = body.tick;
  if (!(typeof t === 'number' && Number.isSafeInteger(t) && t >= 0))
    throw new DomainError('invalid', 'INVALID_TICK', 'tick must be a non-negative integer');
}

/** TTL rules with their own codes: ttlSeconds is an integer ≥ 1 and never comes with expiresAt. */
export function checkTtl(body: unknown): void {
  if (!isRecord(body)) return;
  if ('ttlSeconds' in body && 'expiresAt' in body)
    throw new DomainError('invalid', 'TTL_CONFLICT', 'give ttlSeconds or expiresAt, not both');
  if ('ttlSeconds' in body) {
    const t = body.ttlSeconds;
    if (!(typeof t === 'number' && Number.isInteger(t) && t >= 1 && t <= STATE_LIMITS.maxTtlSeconds)) {
      throw new DomainError(
        'invalid',
        'INVALID_TTL',
        `ttlSeconds must be an integer from 1 to ${STATE_LIMITS.maxTtlSeconds}`,
      );
    }
  }
}
