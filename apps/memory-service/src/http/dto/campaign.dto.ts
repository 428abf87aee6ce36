import { CLOCKS, DANGER_LEVELS, MESSAGE_ROLES, VISIBILITIES } from '@app/campaign';
import { invalid } from '@app/common';
import { MEMORY_SUMMARY_MAX_CHARS, RETRACT_MAX_INDEXES, RETRACT_REASON_MAX_CHARS } from '@app/campaign';
import { z } from 'zod';
import { idSchema, isoTimeSchema, singleLine } from '../validation';

/** Limits (README "Limits"): one place, enforced here. */
export const LIMITS = {
  bodyBytes: 1024 * 1024,
  messagesPerPost: 500,
  contentChars: 16_000,
  nameChars: 200,
  aliases: 20,
  aliasChars: 100,
  objectives: 100,
  toolCalls: 64,
  audience: 100,
  npcIdsPerMessage: 100,
  listLimit: 1000,
  pathParamChars: 1000,
};

const name = singleLine(LIMITS.nameChars);
const isoTime = isoTimeSchema;

export const createCampaignBody = z.strictObject({
  id: idSchema.optional(),
  name,
  perRoleMemory: z.boolean().optional(),
  clock: z.enum(CLOCKS).optional(),
});
/** §8 partial settings: any of them, at least one. */
export const settingsBody = z
  .strictObject({ perRoleMemory: z.boolean().optional(), clock: z.enum(CLOCKS).optional() })
  .refine((s) => s.perRoleMemory !== undefined || s.clock !== undefined, 'give perRoleMemory and/or clock');
/** §8 story time: free text on one line, 1–80 characters ("Day 3 of Frostmoon, dusk"). */
const storyTime = singleLine(80).optional();
export const locationBody = z.strictObject({ name, dangerLevel: z.enum(DANGER_LEVELS).optional() });
export const npcBody = z.strictObject({
  name,
  aliases: z.array(singleLine(LIMITS.aliasChars)).max(LIMITS.aliases).optional(),
  locationId: idSchema.nullable().optional(),
});
export const questBody = z.strictObject({
  name,
  objectives: z.array(z.strictObject({ id: idSchema, name })).max(LIMITS.objectives),
});

const message = z
  .strictObject({
    role: z.enum(MESSAGE_ROLES),
    speaker: singleLine(LIMITS.nameChars).nullable().optional(),
    content: z.string().max(LIMITS.contentChars),
    locationId: idSchema.nullable().optional(),
    npcIds: z.array(idSchema).max(LIMITS.npcIdsPerMessage).optional(),
    at: isoTime.optional(),
    visibility: z.enum(VISIBILITIES).optional(),
    audience: z.array(idSchema).max(LIMITS.audience).optional(),
    toolCalls: z
      .array(z.strictObject({ id: idSchema, name: idSchema }))
      .max(LIMITS.toolCalls)
      .optional(),
    toolCallId: idSchema.optional(),
    reasoning: z.string().max(LIMITS.contentChars).optional(),
    storyTime,
  })
  .superRefine((m, ctx) => {
    const callsOnly = m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0;
    if (m.content.trim().length === 0 && !callsOnly)
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'must not be empty' });
    if (m.toolCallId !== undefined && m.role !== 'tool')
      ctx.addIssue({ code: 'custom', path: ['toolCallId'], message: 'only tool messages carry a toolCallId' });
    if (m.role === 'tool' && m.toolCallId === undefined)
      ctx.addIssue({ code: 'custom', path: ['toolCallId'], message: 'a tool message needs the toolCallId it answers' });
    if (m.toolCalls !== undefined && m.role !== 'assistant')
      ctx.addIssue({ code: 'custom', path: ['toolCalls'], message: 'only assistant messages carry toolCalls' });
    if (m.audience?.length && m.visibility !== 'private')
      ctx.addIssue({ code: 'custom', path: ['audience'], message: 'audience goes with visibility "private"' });
  });

export const messagesBody = z.strictObject({ messages: z.array(message).min(1).max(LIMITS.messagesPerPost) });

/** §8 split parties: `players` moves only those players; without it the whole party moves, as before. */
export const changeLocationBody = z.strictObject({
  toLocationId: idSchema,
  players: z.array(idSchema).min(1).max(LIMITS.audience).optional(),
  storyTime,
});
export const completeObjectiveBody = z.strictObject({ questId: idSchema, objectiveId: idSchema, storyTime });
export const completeQuestBody = z.strictObject({ questId: idSchema, storyTime });
export const progressActBody = z.strictObject({ actId: idSchema, storyTime });
export const updateLocationStateBody = z.strictObject({
  locationId: idSchema,
  dangerLevel: z.enum(DANGER_LEVELS).optional(),
  completeEncounter: idSchema.optional(),
  storyTime,
});
export const emptyBody = z.strictObject({}).nullable().optional();
export const endRoundBody = z.strictObject({ storyTime }).nullable().optional();

/**
 * `asOf=<V>` (DESIGN §10 "As-of reads"), one fragment spread into every read's query schema. Parsed by `asOfOf` (its
 * own INVALID_VERSION code, as the range check against the campaign's version has); documented as the integer it is.
 */
export const asOfQuery = {
  asOf: z
    .string()
    .max(64)
    .meta({ type: 'integer', minimum: 1, description: 'read the campaign as it was at this game version' })
    .optional(),
};

/** The query of a read that takes nothing but `asOf` (digest, players, accounts). */
export const asOfOnlyQuery = z.strictObject({ ...asOfQuery });

/** The `asOf` query value as a version number; anything but a positive integer is 400 INVALID_VERSION. */
export function asOfOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,10}$/.test(raw) || Number(raw) < 1)
    throw invalid('INVALID_VERSION', `asOf must be a version from 1 to the campaign's version, not ${raw}`);
  return Number(raw);
}

/** DESIGN §10: a past version needs no wait, so `asOf` with `minVersion` or `waitMs` is 400 INVALID_VERSION. */
export function noWaitWithAsOf(q: { asOf?: string; minVersion?: number; waitMs?: number }): void {
  if (q.asOf !== undefined && (q.minVersion !== undefined || q.waitMs !== undefined))
    throw invalid('INVALID_VERSION', 'asOf cannot be combined with minVersion or waitMs: a past version needs no wait');
}
// DESIGN §10 fork and rewind (lane 4). Versions are any integer here: out of range is 400 INVALID_VERSION, decided
// against the campaign's version in the operation's transaction.
const version = z.number().int();
export const forkBody = z.strictObject({
  id: idSchema.optional(),
  name: name.optional(),
  atVersion: version.optional(),
});
export const rewindBody = z.strictObject({ toVersion: version, keepAs: idSchema.optional() });
// Timelines (DESIGN §10): retraction and the game master's memory corrections.
export const retractBody = z.strictObject({
  indexes: z
    .array(z.number().int().min(0).max(2_000_000_000))
    .min(1)
    .max(RETRACT_MAX_INDEXES)
    .refine((xs) => new Set(xs).size === xs.length, 'must be distinct message indexes'),
  reason: z.string().max(RETRACT_REASON_MAX_CHARS).nullable().optional(),
});
export const correctMemoryBody = z.strictObject({
  summary: z
    .string()
    .max(MEMORY_SUMMARY_MAX_CHARS)
    .refine((s) => s.trim().length > 0, 'must not be empty or only spaces'),
});
