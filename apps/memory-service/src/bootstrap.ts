import 'reflect-metadata';
import { AppConfig } from '@app/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { AppModule } from './app.module';
import { CoreOverrides } from './core.module';
import { LIMITS } from './http/dto/campaign.dto';
import { sendProblem, toProblem } from './http/problem.filter';

/** Builds the Nest app on Fastify with the body limit, problem+json errors and request ids. */
export async function createApp(config: AppConfig, overrides: CoreOverrides = {}, logger: false | undefined = undefined): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: LIMITS.bodyBytes,
    // Fastify's default (100) refused valid 128-character ids; longer ones reach pathId and get 400 INVALID_ID.
    routerOptions: { maxParamLength: LIMITS.pathParamChars },
    // Malformed URLs and over-long params are answered by Fastify before Nest: make them problem+json too.
    frameworkErrors: (error: Error, _req: FastifyRequest, reply: FastifyReply) => sendProblem(reply, toProblem(error)),
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\x21-\x7e]{1,128}$/.test(given) ? given : randomUUID();
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, overrides), adapter, { logger: logger === false ? false : undefined });
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onSend', async (req, reply) => {
    void reply.header('x-request-id', String(req.id));
  });
  app.enableShutdownHooks();
  return app;
}
