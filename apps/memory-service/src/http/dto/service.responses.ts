import { z } from 'zod';
import { count, int, time } from './responses.shared';

// Success bodies of search, broadcasts, health, the campaign timeline and usage. Re-exported by responses.ts.

const searchHit = z.object({
  kind: z.enum(['message', 'reasoning', 'memory', 'broadcast']),
  ref: z.union([int, z.string()]).describe('message index (messages, reasoning) or memory id'),
  snippet: z.string().describe('text around the hits, each hit wrapped in «…»'),
  score: z.number(),
  at: time,
  round: int.nullable(),
});
export const searchResponse = z.object({ items: z.array(searchHit) });
const broadcast = z.object({
  id: z.string(),
  content: z.string(),
  from: z.string(),
  at: time,
  visibility: z.enum(['public', 'gm']),
});
export const broadcastResponse = broadcast;
export const broadcastsResponse = z.object({
  items: z.array(
    broadcast.extend({
      kind: z.literal('broadcast'),
      ref: z.string(),
      snippet: z.string().optional(),
      score: z.number().optional(),
    }),
  ),
});

export const readinessResponse = z.object({
  status: z.enum(['ok', 'unavailable']),
  database: z.enum(['up', 'down']),
  worker: z.enum(['running', 'stopped']),
  replica: z.record(z.string(), z.unknown()),
});
export const livenessResponse = z.object({
  status: z.string(),
  info: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  error: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  details: z.record(z.string(), z.record(z.string(), z.unknown())),
});

export const timelineResponse = z.object({
  items: z.array(
    z.object({
      id: z.string().describe('<timeline>:<game|memory>:<version>, the SSE event id'),
      stream: z.enum(['game', 'memory']),
      version: count,
      type: z.string(),
      data: z.unknown(),
      triggerVersion: count.optional(),
      recordedAt: time,
    }),
  ),
});

const usd = z.number().nullable().describe('USD at MODEL_PRICES; null when no call of the group has a priced model');
const usageTotals = {
  calls: count,
  requests: count,
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: count,
  cacheWriteTokens: count,
  latencyMs: count,
  failedCalls: count.describe('attempts that failed (empty answer, error, timeout)'),
  abandonedCalls: count.describe('calls whose outcome never committed (shutdown, lost lease, crash)'),
  estimatedCost: usd,
  wastedCost: usd.describe('the part of estimatedCost spent on failed and abandoned calls'),
};
const modelPrice = z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number() });
export const usageResponse = z.object({
  campaignId: z.string(),
  currency: z.literal('USD'),
  totals: z.object(usageTotals),
  byScope: z.array(z.object({ scope: z.string(), ...usageTotals })),
  byModel: z.array(z.object({ model: z.string(), price: modelPrice.nullable(), ...usageTotals })),
  unpricedModels: z.array(z.string()),
});
export const memoryUsageResponse = z.object({
  memoryId: z.string(),
  calls: z.array(
    z.object({
      scope: z.string(),
      subjectId: z.string(),
      attempt: int.min(1),
      model: z.string(),
      outcome: z.enum(['ok', 'empty', 'error', 'timeout', 'abandoned', 'pending']),
      inputTokens: count,
      outputTokens: count,
      cacheReadTokens: count,
      cacheWriteTokens: count,
      latencyMs: count,
      requests: count,
      triggerVersion: count,
      calledAt: time,
      estimatedCost: z.number().nullable(),
    }),
  ),
});
