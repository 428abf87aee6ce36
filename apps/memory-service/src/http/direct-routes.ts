import { CLOCK, Clock } from '@app/common';
import { INestApplicationContext, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { z } from 'zod';
import { RESPONSE_SCHEMA } from './api-docs';
import { MessagesController, recordMessages } from './controllers/messages.controller';
import { messagesBody } from './dto/campaign.dto';
import { answerProblem } from './problem.filter';
import { checkResponse } from './response-check.interceptor';
import { SchemaValidationPipe } from './schema-validation.pipe';
import { idSchema } from './validation';
import { answerBody, requestWriteMeta } from './write-meta';

/** The route served without Nest's pipeline, as Nest registers it. */
const RECORD_MESSAGES_URL = '/v1/campaigns/:cid/messages';

const SERVED = new WeakMap<FastifyInstance, string[]>();

/** `METHOD url` of the routes whose handler `serveDirectly` swapped (a renamed route must not lose it silently). */
export const directRoutesOf = (fastify: FastifyInstance): string[] => SERVED.get(fastify) ?? [];

export interface DirectRouteOptions {
  /** Check each answer against the route's documented schema, as ResponseCheckInterceptor does (e2e harness). */
  checkResponses?: boolean;
}

/**
 * Issue 33: `POST /v1/campaigns/:cid/messages`, the write every turn of play makes, is served by a plain handler
 * instead of Nest's router pipeline (param pipes, interceptors and the exception filter through rxjs: ≈ 10 % of the
 * CPU of a single-message write). The route stays Nest's — `MessagesController.record` declares its path, its
 * `@Access` rule and its OpenAPI document, and Fastify's hooks (API keys, security headers, request ids, metrics,
 * logging) run as for every route — only its handler is swapped when Nest registers it. The handler does what Nest's
 * pipeline did for it: the same zod schemas through the same pipe (path first, then body), the same write metadata
 * and command, the `WriteAnswer` headers, 201, and problem+json through the global filter's `answerProblem`.
 */
export function serveDirectly(fastify: FastifyInstance, app: INestApplicationContext, o: DirectRouteOptions = {}) {
  let handler: RouteHandlerMethod | undefined;
  const served: string[] = [];
  SERVED.set(fastify, served);
  fastify.addHook('onRoute', (route) => {
    if (route.url !== RECORD_MESSAGES_URL || ![route.method].flat().includes('POST')) return;
    served.push(`POST ${route.url}`);
    // Built on the first request: the app's providers are all resolvable by then.
    route.handler = function (req, reply) {
      handler ??= recordMessagesHandler(app, o);
      return handler.call(this, req, reply);
    };
  });
}

function recordMessagesHandler(app: INestApplicationContext, o: DirectRouteOptions): RouteHandlerMethod {
  const commands = app.get(CommandBus);
  const clock = app.get<symbol, Clock>(CLOCK);
  const pipe = new SchemaValidationPipe();
  const logger = new Logger('http');
  const schema = o.checkResponses
    ? (Reflect.getMetadata(RESPONSE_SCHEMA, MessagesController.prototype.record) as z.ZodType | undefined)
    : undefined;
  return async (req: FastifyRequest, reply: FastifyReply) => {
    try {
      const params = req.params as Record<string, string>;
      const cid = (await pipe.transform(params.cid, { type: 'param', data: 'cid', schema: idSchema })) as string;
      const dto = (await pipe.transform(req.body, { type: 'body', schema: messagesBody })) as z.infer<
        typeof messagesBody
      >;
      const out = await recordMessages(commands, clock, cid, dto, requestWriteMeta(req));
      const body = answerBody(reply, out);
      if (schema) checkResponse(schema, body, 'MessagesController.record');
      return reply.code(201).send(body);
    } catch (err) {
      answerProblem(err, req, reply, logger);
      return reply;
    }
  };
}
