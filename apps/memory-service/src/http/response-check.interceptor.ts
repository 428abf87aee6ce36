import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import { map, Observable } from 'rxjs';
import { z } from 'zod';
import { SentBody } from '../reads/read-pool';
import { RESPONSE_SCHEMA } from './api-docs';

/**
 * Checks each JSON answer against the zod schema its route documents (ApiRoute `schema`), so the OpenAPI
 * document cannot drift from what the service sends. On in the e2e harness (CoreOverrides.checkResponses),
 * off in production: a mismatch there would only turn a good answer into an error.
 */
@Injectable()
export class ResponseCheckInterceptor implements NestInterceptor {
  constructor(@Inject(Reflector) private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const schema = this.reflector.get<z.ZodType | undefined>(RESPONSE_SCHEMA, context.getHandler());
    if (!schema) return next.handle();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const where = `${context.getClass().name}.${context.getHandler().name}`;
    return next
      .handle()
      .pipe(map((body: unknown) => checkResponse(schema, body, where, reply.getHeader('content-type'))));
  }
}

/** `body` when it matches the route's documented `schema` (text/plain forms pass); an Error naming `where` if not. */
export function checkResponse(schema: z.ZodType, body: unknown, where: string, contentType?: unknown): unknown {
  // Text forms pass; a body serialized where it was built (a read worker's, §13) is checked as what it says.
  const serialized = serializedOf(body);
  const json = serialized !== undefined && /json/.test(String(contentType ?? ''));
  if (serialized !== undefined && !json) return body;
  const result = schema.safeParse(json ? JSON.parse(serialized) : body);
  if (!result.success)
    throw new Error(`response of ${where} does not match its documented schema: ${z.prettifyError(result.error)}`);
  return body;
}

/** The text a body goes out as when it is already serialized (a string, bytes, a read's box); undefined if not. */
function serializedOf(body: unknown): string | undefined {
  if (body instanceof SentBody) return body.peek();
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  return undefined;
}
