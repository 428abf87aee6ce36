import 'reflect-metadata';
import { AppConfig } from '@app/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { AppModule } from './app.module';
import { serveOpenApi } from './http/openapi';
import { Logging } from './observability/logger';
import { Metrics } from './observability/metrics';
import { CoreOverrides } from './core.module';
import { installApiKeyAuth } from './http/api-key.auth';
import { acceptJsonOnly, hardenedFastifyOptions, serverOptions } from './http/fastify-hardening';
import { LIMITS } from './http/dto/campaign.dto';
import { installSecurityHeaders } from './http/security-headers';
import { normalizePath, recordRouteRules, RouteRule } from './http/route-access';
import { acceptNdjsonImports } from './transfer/transfer.controller';
import { serveDirectly } from './http/direct-routes';

type CompilerFactory = (...args: unknown[]) => unknown;
type Factories = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
/** Fastify's own compilers (its dependencies), required from Fastify's folder when a route first needs one. */
const fromFastify = (name: string): CompilerFactory => {
  const selector = createRequire(require.resolve('fastify'))(name) as () => CompilerFactory;
  return selector();
};
const lazy =
  (name: string) =>
  (...args: unknown[]) =>
    fromFastify(name)(...args);

/**
 * Fastify loads ajv and fast-json-stringify (≈ 100 modules, ≈ 5 % of a cached boot) when it starts, for route
 * schemas; this service's routes have none (zod validates in the controllers), so they load on first use.
 */
const lazySchemaCompilers: FastifyServerOptions['schemaController'] = {
  compilersFactory: {
    buildValidator: lazy('@fastify/ajv-compiler') as unknown as Factories['buildValidator'],
    buildSerializer: lazy('@fastify/fast-json-stringify-compiler') as unknown as Factories['buildSerializer'],
  },
};

const RULES = new WeakMap<object, RouteRule[]>();

/** Every route the router knows (HEAD included) with its declared access rule (the route-table test). */
export function routeRulesOf(app: NestFastifyApplication): RouteRule[] {
  return RULES.get(app) ?? [];
}

/** Every route registered on the app's Fastify instance, HEAD twins left out (for the OpenAPI completeness test). */
export function routesOf(app: NestFastifyApplication): { method: string; url: string }[] {
  return routeRulesOf(app)
    .filter((r) => r.method !== 'HEAD')
    .map(({ method, url }) => ({ method, url }));
}

/** Builds the Nest app on Fastify with the body limit, problem+json errors and request ids. */
export async function createApp(
  config: AppConfig,
  overrides: CoreOverrides = {},
  logger: false | undefined = undefined,
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    ...hardenedFastifyOptions,
    ...serverOptions(config),
    bodyLimit: LIMITS.bodyBytes,
    schemaController: lazySchemaCompilers,
    // No Nest middleware anywhere (the cross-cutting work is Fastify hooks): @fastify/middie's per-request hook
    // would run for nothing on every request (issue 29: ≈ 5 % of a context read's main-thread time).
    skipMiddie: true,
    // Fastify's default (100) refused valid 128-character ids; longer ones reach pathId and get 400 INVALID_ID.
    // Every spelling of a path reaches the same route, so gets the same access decision (route-access.ts).
    routerOptions: { maxParamLength: LIMITS.pathParamChars, ignoreDuplicateSlashes: true, ignoreTrailingSlash: true },
    rewriteUrl: (req: { url?: string }) => normalizePath(req.url ?? '/'),
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && /^[\x21-\x7e]{1,128}$/.test(given) ? given : randomUUID();
      req.headers['x-request-id'] = id; // pino-http reads it, so logs and events share the id
      return id;
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, overrides), adapter, {
    bufferLogs: logger !== false,
    logger: logger === false ? false : undefined,
    bodyParser: false,
    // Boot errors (bad database, failed migration) reject here with their cause instead of exiting the process.
    abortOnError: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  if (logger !== false) {
    const logging = new Logging({ level: config.logLevel, destination: overrides.logDestination });
    app.useLogger(logging.nestLogger());
    logging.installRequestLogging(fastify);
  }
  installSecurityHeaders(fastify);
  acceptJsonOnly(fastify, config);
  acceptNdjsonImports(fastify);
  installHooks(app, fastify);
  serveDirectly(fastify, app, { checkResponses: overrides.checkResponses });
  installApiKeyAuth(fastify, config);
  serveOpenApi(app);
  // No enableShutdownHooks(): main.ts installs the graceful SIGTERM handler (graceful-shutdown.ts).
  return app;
}

/** Route table with access rules (route-table and OpenAPI tests), request metrics, request ids, `connection: close`. */
function installHooks(app: NestFastifyApplication, fastify: FastifyInstance): void {
  RULES.set(
    app,
    recordRouteRules((hook) => fastify.addHook('onRoute', hook)),
  );
  const metrics = app.get(Metrics);
  fastify.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions?.url ?? 'unmatched';
    metrics.httpDuration.observe(
      { method: req.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
  // Shutting down: answers to in-flight requests close their connection, so keep-alive clients move on.
  let closing = false;
  fastify.addHook('preClose', async () => {
    closing = true;
  });
  fastify.addHook('onSend', async (req, reply) => {
    void reply.header('x-request-id', String(req.id));
    if (closing) void reply.header('connection', 'close');
  });
}
