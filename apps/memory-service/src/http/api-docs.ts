import { applyDecorators, SetMetadata } from '@nestjs/common';
import { z } from 'zod';

type Swagger = typeof import('@nestjs/swagger');
type AnyDecorator = (target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => unknown;

/**
 * @nestjs/swagger takes ≈0.4 s to load, a third of a cold start, and only /docs needs it. So the Api*
 * decorators below record what they were given and apply swagger's own decorators when the document is
 * first built (loadSwagger); decorations made after that apply at once. Import them from here, not from
 * @nestjs/swagger, or the boot pays for swagger again (test/e2e/operations/boot-footprint.e2e-spec.ts checks).
 */
let swagger: Swagger | undefined;
const pending: Array<(s: Swagger) => void> = [];

export function loadSwagger(): Swagger {
  if (!swagger) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on the first /docs call (boot time)
    swagger = require('@nestjs/swagger') as Swagger;
    for (const apply of pending.splice(0)) apply(swagger);
  }
  return swagger;
}

function deferred(make: (s: Swagger) => AnyDecorator): MethodDecorator & ClassDecorator {
  return ((target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const apply = (s: Swagger) => void make(s)(target, key, descriptor);
    if (swagger) apply(swagger);
    else pending.push(apply);
    return descriptor;
  }) as MethodDecorator & ClassDecorator;
}

export const ApiTags = (...tags: string[]) => deferred((s) => s.ApiTags(...tags) as AnyDecorator);
export const ApiOperation = (...a: Parameters<Swagger['ApiOperation']>) =>
  deferred((s) => s.ApiOperation(...a) as AnyDecorator);
export const ApiResponse = (...a: Parameters<Swagger['ApiResponse']>) =>
  deferred((s) => s.ApiResponse(...a) as AnyDecorator);
export const ApiQuery = (...a: Parameters<Swagger['ApiQuery']>) => deferred((s) => s.ApiQuery(...a) as AnyDecorator);
export const ApiBody = (...a: Parameters<Swagger['ApiBody']>) => deferred((s) => s.ApiBody(...a) as AnyDecorator);
export const ApiHeader = (...a: Parameters<Swagger['ApiHeader']>) => deferred((s) => s.ApiHeader(...a) as AnyDecorator);
export const ApiExcludeController = () => deferred((s) => s.ApiExcludeController() as AnyDecorator);

/** RFC 9457 problem details with a code: every 4xx/5xx answer (openapi.ts names it components.schemas.Problem). */
export const PROBLEM = {
  type: 'object',
  description: 'RFC 9457 problem details with a stable machine-readable code.',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', example: 'LOCATION_NOT_FOUND' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};

const PROBLEM_TEXT: Record<number, string> = {
  400: 'Invalid body, query or id (VALIDATION_FAILED, INVALID_ID, …)',
  401: 'Missing or invalid bearer token (UNAUTHORIZED)',
  404: 'Unknown campaign, location, NPC, quest, objective…',
  409: 'State conflict (already there, already completed, id taken…)',
  412: 'If-Match does not match the campaign version (VERSION_MISMATCH)',
  413: 'Body larger than 1 MiB (BODY_TOO_LARGE), or holding more than MAX_JSON_KEYS keys (JSON_TOO_MANY_KEYS)',
  422: 'Idempotency-Key reused with a different body (IDEMPOTENCY_KEY_REUSED)',
  403: 'The bearer key may not use this campaign (FORBIDDEN)',
  503: 'Unavailable: the database does not answer (health), or BUSY: READ_QUEUE reads already wait (Retry-After)',
};

/** Metadata key of a route's success schema (read by ResponseCheckInterceptor). */
export const RESPONSE_SCHEMA = 'lorekeeper:response-schema';

/** JSON Schema (OpenAPI 3.0 dialect) of a zod schema; queryInt-style metadata turns strings into integers. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  return z.toJSONSchema(schema, {
    io,
    target: 'openapi-3.0',
    unrepresentable: 'any',
    reused: 'inline',
    cycles: 'ref',
  }) as Record<string, unknown>;
}

export interface RouteSuccess {
  status: number;
  /** The zod schema of the JSON body: documented, and checked against every answer when response checking is on. */
  schema?: z.ZodType;
  example?: unknown;
  description?: string;
  /** A clean, unique operationId (a generated client's method name). */
  operationId?: string;
  /** The route can also answer text/plain (Accept: text/plain or format=text): both media types on one response. */
  text?: boolean;
  /** The body is not JSON but this media type (a string), e.g. text/event-stream. */
  mediaType?: string;
}

/** A success without a body (`204 No Content`): no schema, no example, no content. */
export const NO_CONTENT: RouteSuccess = { status: 204, description: 'No Content' };

/** One route's documentation: summary, success schema and example, and its problem+json error responses. */
export function ApiRoute(summary: string, success: RouteSuccess, errors: number[] = [400, 404]) {
  // The JSON Schemas are made when the document is built, not at boot.
  const content = (): Record<string, object> | undefined => {
    // 204 No Content (a DELETE): nothing to describe.
    if (success.status === 204) return undefined;
    const json = success.schema ? { schema: jsonSchemaOf(success.schema, 'output') } : {};
    const example = success.example === undefined ? {} : { example: success.example };
    if (success.mediaType) return { [success.mediaType]: { schema: { type: 'string' }, ...example } };
    return {
      'application/json': { ...json, ...example },
      ...(success.text ? { 'text/plain': { schema: { type: 'string' } } } : {}),
    };
  };
  return applyDecorators(
    ApiOperation({ summary, ...(success.operationId ? { operationId: success.operationId } : {}) }),
    deferred(
      (s) =>
        s.ApiResponse({
          status: success.status,
          description: success.description ?? 'OK',
          ...(success.status === 204 ? {} : { content: content() as never }),
        }) as AnyDecorator,
    ),
    ...errors.map((status) =>
      ApiResponse({
        status,
        description: PROBLEM_TEXT[status] ?? 'Problem',
        content: { 'application/problem+json': { schema: PROBLEM } },
      }),
    ),
    ...(success.schema ? [SetMetadata(RESPONSE_SCHEMA, success.schema)] : []),
  );
}

/** A JSON response documented by a zod schema (other than the route's success, e.g. a 503 body). */
export function ApiZodResponse(status: number, description: string, schema: z.ZodType) {
  return deferred(
    (s) =>
      s.ApiResponse({
        status,
        description,
        content: { 'application/json': { schema: jsonSchemaOf(schema, 'output') as never } },
      }) as AnyDecorator,
  );
}

/** Errors every write may return besides its own. */
export const WRITE_ERRORS = [400, 404, 409, 412, 413, 422];

/** Documents a body validated in the handler with `parse(schema, body)`: the zod DTO stays the one source. */
export function ApiZodBody(schema: z.ZodType) {
  return deferred((s) => s.ApiBody({ schema: jsonSchemaOf(schema, 'input') }) as AnyDecorator);
}

/** Documents a body that is not JSON but `mediaType` text read as a stream (the §15 import's NDJSON). */
export function ApiTextBody(mediaType: string, description: string) {
  return applyDecorators(
    deferred((s) => s.ApiConsumes(mediaType) as AnyDecorator),
    deferred((s) => s.ApiBody({ description, schema: { type: 'string' } }) as AnyDecorator),
  );
}

/** Documents each property of a zod query object as a query parameter. */
export function ApiZodQuery(schema: z.ZodObject) {
  return deferred((s) => {
    const json = jsonSchemaOf(schema, 'input') as {
      properties?: Record<string, Record<string, unknown>>;
      required?: string[];
    };
    const decorators = Object.entries(json.properties ?? {}).map(([name, p]) =>
      s.ApiQuery({ name, required: json.required?.includes(name) ?? false, schema: p as never }),
    );
    return applyDecorators(...(decorators as MethodDecorator[])) as AnyDecorator;
  });
}
