import { WriteMeta } from '@app/campaign';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { idempotencyKey, ifMatch, requestHash } from './validation';

/** Write metadata from the request: If-Match, Idempotency-Key, correlation id. */
export function writeMeta(req: FastifyRequest, scope: string, body: unknown): WriteMeta {
  const key = idempotencyKey(req.headers['idempotency-key']);
  const path = req.url.split('?')[0];
  return {
    expectedVersion: ifMatch(req.headers['if-match']),
    idempotency: key ? { scope, key, requestHash: requestHash(req.method, path, body ?? null) } : undefined,
    metadata: { correlationId: String(req.id) },
  };
}

/** Marks idempotent replays so a client can tell. */
export function markReplay(reply: FastifyReply, replayed: boolean): void {
  if (replayed) void reply.header('idempotent-replayed', 'true');
}
