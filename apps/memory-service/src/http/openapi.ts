import { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { loadSwagger, PROBLEM } from './api-docs';
import { accessConfig } from './route-access';
import { nonceCsp } from './security-headers';

const PROBLEM_REF = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };

const TAGS: Record<string, string> = {
  campaigns: 'Create a campaign and register its locations, NPCs and quests.',
  messages: 'Record what is said and done; read it back.',
  commands: 'Game events that trigger memories (202: the memory worker follows asynchronously).',
  'memory and context': 'Memories, the event log, and the prompt-ready context for an agent.',
  'layered context': 'The campaign bible and the glossary every context is anchored on.',
  'game state': 'Snapshots of game tool results per account, staleness, log-in and log-out.',
  'world state': 'World facts, the digest and player characters with their HUD line.',
  search: 'Ranked full-text search in a campaign.',
  broadcasts: 'Agent-to-agent announcements that belong to no campaign.',
  stream: 'Live Server-Sent Events of both streams, and timeline pages (docs/stream.md).',
  timelines:
    'Fork, rewind, retract and correct: memories follow the story (docs/timelines.md). Retracted messages and ' +
    'what was built from them leave every read at once; the worker revises the memories afterwards.',
  operations: 'Liveness and readiness (no key needed) and Prometheus metrics (a key when keys are set).',
};

/**
 * The OpenAPI document, generated from the controllers and their zod DTOs (request and response), then
 * completed with what applies to whole groups of routes: bearer security with 401/403 on /v1, the
 * Idempotency-Key and If-Match headers on the writes that honour them, servers and tag descriptions.
 */
export function buildOpenApi(app: INestApplication, serverUrl = '/'): OpenAPIObject {
  const { DocumentBuilder, SwaggerModule } = loadSwagger();
  const builder = new DocumentBuilder()
    .setTitle('Lorekeeper')
    .setDescription(
      'Event-sourced narrative memory for AI game masters and game-playing agents. ' +
        'Errors are application/problem+json {type, title, status, detail, code, errors?}: ' +
        'bad input is a 4xx with a code, never a 5xx, and appends nothing.',
    )
    .setVersion('1')
    .setLicense('MIT', 'https://opensource.org/licenses/MIT')
    .addServer(
      serverUrl,
      'This service (relative: Try it out and generated clients call the host that served the document)',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description: 'An opaque key from LOREKEEPER_API_KEYS (not a JWT). Not needed when the variable is unset.',
      },
      'bearer',
    )
    .addSecurityRequirements('bearer');
  for (const [name, description] of Object.entries(TAGS)) builder.addTag(name, description);
  const doc = SwaggerModule.createDocument(app, builder.build());
  return complete(doc);
}

type Operation = {
  operationId?: string;
  parameters?: unknown[];
  responses: Record<
    string,
    { description?: string; headers?: Record<string, unknown>; content?: Record<string, unknown> }
  >;
  security?: unknown[];
  tags?: string[];
};

function complete(doc: OpenAPIObject): OpenAPIObject {
  doc.components ??= {};
  // addBearerAuth defaults bearerFormat to JWT; these keys are opaque strings.
  delete (doc.components.securitySchemes?.bearer as { bearerFormat?: string } | undefined)?.bearerFormat;
  doc.components.schemas = { ...doc.components.schemas, Problem: PROBLEM as never };
  doc.components.parameters = { ...doc.components.parameters, ...HEADER_PARAMETERS } as never;
  doc.components.headers = { ...doc.components.headers, ...RESPONSE_HEADERS } as never;
  const seenIds = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(item as Record<string, unknown>)) {
      if (!['get', 'put', 'post', 'delete', 'patch'].includes(method)) continue;
      const op = raw as Operation;
      // One handler on two paths (login and register) would share an operationId: name it after its path.
      if (op.operationId && seenIds.has(op.operationId))
        op.operationId = camel(path.split('/').pop() ?? op.operationId);
      if (op.operationId) seenIds.add(op.operationId);
      for (const response of Object.values(op.responses)) {
        if (response.content?.['application/problem+json']) response.content = PROBLEM_REF;
      }
      if (path.startsWith('/health')) {
        op.security = []; // probes are open
        continue;
      }
      // /metrics needs a key whenever keys are configured (a viewer-bound key is 403 there).
      if (!path.startsWith('/v1/')) {
        op.responses['401'] ??= { description: 'Missing or invalid bearer key (UNAUTHORIZED)', content: PROBLEM_REF };
        continue;
      }
      op.responses['401'] ??= { description: 'Missing or invalid bearer key (UNAUTHORIZED)', content: PROBLEM_REF };
      op.responses['403'] ??= {
        description: 'The key may not do this (CAMPAIGN_OUT_OF_SCOPE, …)',
        content: PROBLEM_REF,
      };
      // The writes that go through writeMeta document 422 (Idempotency-Key reuse) and, on a campaign, 412 (If-Match).
      const params = (op.parameters ??= []);
      if (op.responses['422']) params.push({ $ref: '#/components/parameters/IdempotencyKey' });
      if (op.responses['412']) params.push({ $ref: '#/components/parameters/IfMatch' });
      // Writes on a campaign answer ETag "<timeline>:<version>": the If-Match of the next write.
      if (op.responses['412']) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (status.startsWith('2'))
            response.headers = { ...response.headers, etag: { $ref: '#/components/headers/ETag' } };
        }
      }
      if (op.responses['422']) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (status.startsWith('2'))
            response.headers = {
              ...response.headers,
              'idempotent-replayed': { $ref: '#/components/headers/IdempotentReplayed' },
            };
        }
      }
    }
  }
  return doc;
}

const camel = (s: string) => s.replace(/[^A-Za-z0-9]+(.)/g, (_m, c: string) => c.toUpperCase());

const HEADER_PARAMETERS = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Send a write twice safely: the same key and body return the first answer ' +
      '(header idempotent-replayed: true) and ' +
      'append nothing; the same key with another body is 422 IDEMPOTENCY_KEY_REUSED.',
    schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,200}$' },
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'Optimistic concurrency: the campaign "<timeline>:<version>" this write expects (the ETag of the last ' +
      'write), or a plain version of the current timeline; a mismatch is 412 VERSION_MISMATCH. A plain version ' +
      'that a rewind discarded is 412 even after the campaign grew back past it.',
    schema: { type: 'string', pattern: '^\\s*(W/)?"?(\\d{1,9}:)?\\d{1,9}"?\\s*$', example: '"1:7"' },
  },
};

const RESPONSE_HEADERS = {
  ETag: {
    description: 'The campaign\'s "<timeline>:<version>" after this write: send it as If-Match with the next one',
    schema: { type: 'string', example: '"1:8"' },
  },
  IdempotentReplayed: {
    description: '"true" when this answer is the replay of an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
};

/** The Swagger UI files /docs serves (from swagger-ui-dist, which @nestjs/swagger brings). */
const UI_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const UI_PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Lorekeeper API — Swagger UI</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: '/docs/openapi.json',
      dom_id: '#swagger-ui',
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      layout: 'StandaloneLayout',
    });
  </script>
</body>
</html>
`;

/**
 * Serves the UI at /docs, the document at /docs/openapi.json (and YAML at /docs-yaml). Built on the first
 * request, not at boot: loading @nestjs/swagger and generating the document cost more than the rest of a
 * cold start.
 */
export function serveOpenApi(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  let document: OpenAPIObject | undefined;
  const doc = () => (document ??= buildOpenApi(app));
  fastify.get('/docs/openapi.json', accessConfig('public'), async (_req, reply) =>
    reply.type('application/json; charset=utf-8').send(doc()),
  );
  fastify.get('/docs-yaml', accessConfig('public'), async (_req, reply) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on the first /docs-yaml call
    const yaml = require('js-yaml') as { dump(value: unknown, options?: object): string };
    return reply.type('text/yaml; charset=utf-8').send(yaml.dump(doc(), { skipInvalid: true, noRefs: true }));
  });
  fastify.get('/docs', accessConfig('public'), async (_req, reply) => {
    // Swagger UI starts from one inline script: allowed by a nonce of this answer alone, never 'unsafe-inline'.
    const { nonce, csp } = nonceCsp();
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', csp)
      .send(UI_PAGE.replace('<script>', `<script nonce="${nonce}">`));
  });
  fastify.get<{ Params: { asset: string } }>('/docs/:asset', accessConfig('public'), async (req, reply) => {
    const type = Object.hasOwn(UI_ASSETS, req.params.asset) ? UI_ASSETS[req.params.asset] : undefined;
    if (!type) return reply.callNotFound();
    const dir = dirname(require.resolve('swagger-ui-dist/package.json'));
    return reply
      .type(type)
      .header('cache-control', 'public, max-age=86400')
      .send(await readFile(join(dir, req.params.asset)));
  });
}
