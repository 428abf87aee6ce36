import 'reflect-metadata';
import { AppConfig } from '@app/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { AppModule } from './app.module';
import { CoreOverrides } from './core.module';
import { LIMITS } from './http/dto/campaign.dto';

/** Builds the Nest app on Fastify with the body limit, problem+json errors and request ids. */
export async function createApp(config: AppConfig, overrides: CoreOverrides = {}, logger: false | undefined = undefined): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: LIMITS.bodyBytes,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\x21-\x7e]{1,128}$/.test(given) ? given : randomUUID();
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, overrides), adapter, { logger: logger === false ? false : undefined });
  const fastify = app.getHttpAdapter().getInstance();
  // Shutting down: answers to in-flight requests close their connection, so keep-alive clients move on.
  let closing = false;
  fastify.addHook('preClose', async () => {
    closing = true;
  });
  fastify.addHook('onSend', async (req, reply) => {
    void reply.header('x-request-id', String(req.id));
    if (closing) void reply.header('connection', 'close');
  });
  app.enableShutdownHooks();
  return app;
}
