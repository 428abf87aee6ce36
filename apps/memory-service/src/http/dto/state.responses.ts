import { z } from 'zod';
import { count, dropped, int, nullableTime, time } from './responses.shared';

// Success bodies of the game-state and world-state routes (DESIGN §5–6): snapshots, accounts, tool rules, facts,
// digests and players. Re-exported by responses.ts.

const tick = count.nullable();
export const putSnapshotResponse = z.object({ tool: z.string(), tick, capturedAt: time, bytes: count });
export const snapshotsResponse = z.object({
  items: z.array(z.object({ tool: z.string(), tick, capturedAt: time, bytes: count, stale: z.boolean() })),
});
export const snapshotResponse = z.object({
  tool: z.string(),
  tick,
  capturedAt: time,
  stale: z.boolean(),
  fieldTicks: z.record(z.string(), tick),
  content: z.unknown().describe('the stored tool result, any JSON value'),
});
export const actionResponse = z.object({ stale: z.array(z.string()).describe('tools this action made stale') });
export const loginResponse = z.object({
  version: count,
  account: z.string(),
  agentId: z.string(),
  previousAccount: z.string().nullable(),
});
export const logoutResponse = z.object({ version: count, account: z.string(), loggedOut: z.literal(true) });
export const accountsResponse = z.object({
  items: z.array(z.object({ account: z.string(), agentId: z.string().nullable() })),
});
const toolRule = z.object({
  tool: z.string(),
  title: z.string().nullable(),
  fields: z.array(z.string()).nullable(),
  invalidatedBy: z.array(z.string()).nullable(),
  maxAgeTicks: count.nullable(),
});
export const toolRuleResponse = toolRule;
export const toolRulesResponse = z.object({ items: z.array(toolRule) });

const fact = z.object({
  type: z.string(),
  key: z.string(),
  value: z.string(),
  priority: int,
  status: z.enum(['active', 'resolved', 'expired']),
  expiresAt: nullableTime,
  assertedAt: time,
  resolvedAt: nullableTime,
});
export const factResponse = z.object({ version: count, fact });
export const factsResponse = z.object({ items: z.array(fact) });
export const digestResponse = z.object({
  version: z.string().describe('SHA-256 of the digest text'),
  text: z.string(),
  tokens: count,
  dropped: z.array(dropped),
});
const player = z.object({
  id: z.string(),
  name: z.string(),
  aliases: z.array(z.string()),
  stats: z.record(z.string(), z.union([z.string(), z.number()])),
  registeredVersion: count,
  locationId: z.string().optional().describe('§8: where the player stands apart from the party (absent: with it)'),
  hud: z.object({ text: z.string(), tokens: count, dropped: z.array(dropped) }),
});
export const playerResponse = player;
export const putPlayerResponse = z.object({ version: count, player });
export const playersResponse = z.object({ items: z.array(player) });
