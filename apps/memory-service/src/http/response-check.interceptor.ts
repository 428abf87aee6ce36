import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { map, Observable } from 'rxjs';
import { z } from 'zod';
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
    const where = `${context.getClass().name}.${context.getHandler().name}`;
    return next.handle().pipe(map((body: unknown) => checkResponse(schema, body, where)));
  }
}

/** `body` when it matches the route's documented `schema` (text/plain forms pass); an Error naming `where` if not. */
export function checkResponse(schema: z.ZodType, body: unknown, where: string): unknown {
  if (typeof body === 'string') return body; // text/plain forms
  const result = schema.safeParse(body);
  if (!result.success)
    throw new Error(`response of ${where} does not match its documented schema: ${z.prettifyError(result.error)}`);
  return body;
}
