import { applyDecorators, SetMetadata } from '@nestjs/common';
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
  403: 'The bearer key may not use this campaign (FORBIDDEN)',
  503: 'Unhealthy: the database does not answer',
};

/** Metadata key of a route's success schema (read by ResponseCheckInterceptor). */
export const RESPONSE_SCHEMA = 'lorekeeper:response-schema';

/** JSON Schema (OpenAPI 3.0 dialect) of a zod schema; queryInt-style metadata turns strings into integers. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  return z.toJSONSchema(schema, { io, target: 'openapi-3.0', unrepresentable: 'any', reused: 'inline', cycles: 'ref' }) as Record<string, unknown>;
}

export interface RouteSuccess {
  status: number;
  /** The zod schema of the JSON body: documented, and checked against every answer when response checking is on. */
  schema?: z.ZodType;
  example?: unknown;
  description?: string;
  /** A clean, unique operationId (a generated client's method name). */
  operationId?: string;
  /** The route can also answer text/plain (format=text). */
  text?: boolean;
}

/** One route's documentation: summary, success schema and example, and its problem+json error responses. */
export function ApiRoute(summary: string, success: RouteSuccess, errors: number[] = [400, 404]) {
  const json = success.schema ? { schema: jsonSchemaOf(success.schema, 'output') as never } : {};
  const example = success.example === undefined ? {} : { example: success.example };
  const content: Record<string, object> = { 'application/json': { ...json, ...example } };
  if (success.text) content['text/plain'] = { schema: { type: 'string' } };
  return applyDecorators(
    ApiOperation({ summary, ...(success.operationId ? { operationId: success.operationId } : {}) }),
    ApiResponse({ status: success.status, description: success.description ?? 'OK', content }),
    ...errors.map((status) => ApiResponse({ status, description: PROBLEM_TEXT[status] ?? 'Problem', content: { 'application/problem+json': { schema: PROBLEM } } })),
    ...(success.schema ? [SetMetadata(RESPONSE_SCHEMA, success.schema)] : []),
  );
}

/** Errors every write may return besides its own. */
export const WRITE_ERRORS = [400, 404, 409, 412, 413, 422];

/** Documents a body validated in the handler with `parse(schema, body)`: the zod DTO stays the one source. */
export function ApiZodBody(schema: z.ZodType) {
  return ApiBody({ schema: jsonSchemaOf(schema, 'input') });
}

/** Documents each property of a zod query object as a query parameter. */
export function ApiZodQuery(schema: z.ZodObject) {
  const json = jsonSchemaOf(schema, 'input') as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return applyDecorators(
    ...Object.entries(json.properties ?? {}).map(([name, s]) => ApiQuery({ name, required: json.required?.includes(name) ?? false, schema: s as never })),
  );
}
