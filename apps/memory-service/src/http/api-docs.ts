import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiQuery, ApiResponse } from '@nestjs/swagger';
import { z } from 'zod';

const PROBLEM = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', example: 'LOCATION_NOT_FOUND' },
    errors: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
  },
};

const PROBLEM_TEXT: Record<number, string> = {
  400: 'Invalid body, query or id (VALIDATION_FAILED, INVALID_ID, …)',
  401: 'Missing or invalid bearer token (UNAUTHORIZED)',
  404: 'Unknown campaign, location, NPC, quest, objective…',
  409: 'State conflict (already there, already completed, id taken…)',
  412: 'If-Match does not match the campaign version (VERSION_MISMATCH)',
  413: 'Body larger than 1 MiB (BODY_TOO_LARGE)',
  422: 'Idempotency-Key reused with a different body (IDEMPOTENCY_KEY_REUSED)',
};

/** One route's documentation: summary, success example and its problem+json error responses. */
export function ApiRoute(summary: string, success: { status: number; example?: unknown; description?: string }, errors: number[] = [400, 404]) {
  return applyDecorators(
    ApiOperation({ summary }),
    ApiResponse({ status: success.status, description: success.description ?? 'OK', ...(success.example === undefined ? {} : { schema: { example: success.example } }) }),
    ...errors.map((status) => ApiResponse({ status, description: PROBLEM_TEXT[status] ?? 'Problem', content: { 'application/problem+json': { schema: PROBLEM } } })),
  );
}

/** Errors every write may return besides its own. */
export const WRITE_ERRORS = [400, 404, 409, 412, 413, 422];

/** Documents a body validated in the handler with `parse(schema, body)`: the zod DTO stays the one source. */
export function ApiZodBody(schema: z.ZodType) {
  return ApiBody({ schema: z.toJSONSchema(schema, { io: 'input', target: 'openapi-3.0', unrepresentable: 'any' }) as Record<string, unknown> });
}

/** Documents each property of a zod query object as a query parameter. */
export function ApiZodQuery(schema: z.ZodObject) {
  const json = z.toJSONSchema(schema, { io: 'input', target: 'openapi-3.0', unrepresentable: 'any' }) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return applyDecorators(
    ...Object.entries(json.properties ?? {}).map(([name, s]) => ApiQuery({ name, required: json.required?.includes(name) ?? false, schema: s as never })),
  );
}
