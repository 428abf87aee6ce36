import { CLOCK, Clock } from '@app/common';
import { INestApplicationContext, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { z } from 'zod';
import { RESPONSE_SCHEMA } from './api-docs';
import { contextQuery, MemoriesController } from './controllers/memories.controller';
import { MessagesController, recordMessages } from './controllers/messages.controller';
import { messagesBody } from './dto/campaign.dto';
import { answerProblem } from './problem.filter';
import { checkResponse } from './response-check.interceptor';
import { SchemaValidationPipe } from './schema-validation.pipe';
import { idSchema } from './validation';
import { answerBody, requestWriteMeta } from './write-meta';

const SERVED = new WeakMap<FastifyInstance, string[]>();

/** `METHOD url` of the routes whose handler `serveDirectly` swapped (a renamed route must not lose it silently). */
export const directRoutesOf = (fastify: FastifyInstance): string[] => SERVED.get(fastify) ?? [];

export interface DirectRouteOptions {
  /** Check each answer against the route's documented schema, as ResponseCheckInterceptor does (e2e harness). */
  checkResponses?: boolean;
}

/** What a direct handler answers with: its status and the body Fastify sends (headers set on the reply). */
interface Answer {
  status: number;
  body: unknown;
}

/** A route served by a plain handler: the Nest route it stands for, and the work its Nest pipeline did. */
interface DirectRoute {
  method: 'GET' | 'POST';
  url: string;
  /** The controller method that declares the route (its `@Access` rule, OpenAPI document and response schema). */
  declaredBy: { controller: string; method: string; fn: object };
  make(
    app: INestApplicationContext,
    pipe: SchemaValidationPipe,
  ): (req: FastifyRequest, reply: FastifyReply) => Promise<Answer>;
}

const cidOf = (pipe: SchemaValidationPipe, req: FastifyRequest) =>
  pipe.transform((req.params as Record<string, string>).cid, {
    type: 'param',
    data: 'cid',
    schema: idSchema,
  }) as Promise<string>;

/**
 * The hot routes (issue 33: the write every turn of play makes; issue 29: the read every agent's turn makes), served
 * by a plain handler instead of Nest's router pipeline (param pipes, interceptors and the exception filter through
 * rxjs: ≈ 10 % of a single-message write's CPU, ≈ 14 % of a context read's main-thread time).
 */
const ROUTES: DirectRoute[] = [
  {
    method: 'POST',
    url: '/v1/campaigns/:cid/messages',
    declaredBy: { controller: 'MessagesController', method: 'record', fn: MessagesController.prototype.record },
    make(app, pipe) {
      const commands = app.get(CommandBus);
      const clock = app.get<symbol, Clock>(CLOCK);
      return async (req, reply) => {
        const cid = await cidOf(pipe, req);
        const dto = (await pipe.transform(req.body, { type: 'body', schema: messagesBody })) as z.infer<
          typeof messagesBody
        >;
        const out = await recordMessages(commands, clock, cid, dto, requestWriteMeta(req));
        return { status: 201, body: answerBody(reply, out) };
      };
    },
  },
  {
    method: 'GET',
    url: '/v1/campaigns/:cid/context',
    declaredBy: { controller: 'MemoriesController', method: 'context', fn: MemoriesController.prototype.context },
    make(app, pipe) {
      const controller = app.get(MemoriesController);
      return async (req, reply) => {
        const cid = await cidOf(pipe, req);
        const q = (await pipe.transform(req.query, { type: 'query', schema: contextQuery })) as z.infer<
          typeof contextQuery
        >;
        return { status: 200, body: await controller.context(cid, q, req, reply) };
      };
    },
  },
];

/**
 * Serves ROUTES without Nest's pipeline. Each route stays Nest's — its controller method declares its path, its
 * `@Access` rule and its OpenAPI document, and Fastify's hooks (API keys, security headers, request ids, metrics,
 * logging) run as for every route — only its handler is swapped when Nest registers it. The handler does what Nest's
 * pipeline did for it: the same zod schemas through the same pipe (path first, then query or body), the same
 * controller code, the route's status, and problem+json through the global filter's `answerProblem`.
 */
export function serveDirectly(fastify: FastifyInstance, app: INestApplicationContext, o: DirectRouteOptions = {}) {
  const served: string[] = [];
  SERVED.set(fastify, served);
  fastify.addHook('onRoute', (route) => {
    const direct = ROUTES.find((r) => r.url === route.url && [route.method].flat().includes(r.method));
    if (!direct) return;
    served.push(`${direct.method} ${route.url}`);
    let handler: RouteHandlerMethod | undefined;
    // Built on the first request: the app's providers are all resolvable by then.
    route.handler = function (req, reply) {
      handler ??= directHandler(direct, app, o);
      return handler.call(this, req, reply);
    };
  });
}

function directHandler(route: DirectRoute, app: INestApplicationContext, o: DirectRouteOptions): RouteHandlerMethod {
  const handle = route.make(app, new SchemaValidationPipe());
  const logger = new Logger('http');
  const where = `${route.declaredBy.controller}.${route.declaredBy.method}`;
  const schema = o.checkResponses
    ? (Reflect.getMetadata(RESPONSE_SCHEMA, route.declaredBy.fn) as z.ZodType | undefined)
    : undefined;
  return async (req: FastifyRequest, reply: FastifyReply) => {
    try {
      const { status, body } = await handle(req, reply);
      if (schema) checkResponse(schema, body, where, reply.getHeader('content-type'));
      return reply.code(status).send(body);
    } catch (err) {
      answerProblem(err, req, reply, logger);
      return reply;
    }
  };
}
