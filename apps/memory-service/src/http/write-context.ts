import { WriteMeta } from '@app/campaign';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf } from './caller';
import { idempotencyKey, ifMatch, requestHash } from './validation';

/**
 * Write metadata from the request: If-Match, Idempotency-Key, correlation id. Idempotency keys are scoped to the
 * API key that used them as well as the campaign (§8), so one tenant can neither detect nor squat another's keys.
 */
export function writeMeta(req: FastifyRequest, scope: string, body: unknown): WriteMeta {
  const key = idempotencyKey(req.headers['idempotency-key']);
  const path = req.url.split('?')[0];
  const keyId = callerOf(req).keyId;
  return {
    expectedVersion: ifMatch(req.headers['if-match']),
    idempotency: key ? { scope: keyId === null ? scope : `${scope}@${keyId}`, key, requestHash: requestHash(req.method, path, body ?? null) } : undefined,
    metadata: { correlationId: String(req.id) },
  };
}

/** Marks idempotent replays so a client can tell. */
export function markReplay(reply: FastifyReply, replayed: boolean): void {
  if (replayed) void reply.header('idempotent-replayed', 'true');
}
