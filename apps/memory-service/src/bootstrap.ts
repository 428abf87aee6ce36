import 'reflect-metadata';
import { AppConfig } from '@app/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { AppModule } from './app.module';
import { CoreOverrides } from './core.module';
import { installApiKeyAuth } from './http/api-key.auth';
import { acceptJsonOnly, hardenedFastifyOptions } from './http/fastify-hardening';
import { LIMITS } from './http/dto/campaign.dto';

/** Builds the Nest app on Fastify with the body limit, problem+json errors and request ids. */
export async function createApp(config: AppConfig, overrides: CoreOverrides = {}, logger: false | undefined = undefined): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    ...hardenedFastifyOptions,
    bodyLimit: LIMITS.bodyBytes,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\x21-\x7e]{1,128}$/.test(given) ? given : randomUUID();
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, overrides), adapter, { logger: logger === false ? false : undefined, bodyParser: false });
  const fastify = app.getHttpAdapter().getInstance();
  acceptJsonOnly(fastify);
  fastify.addHook('onSend', async (req, reply) => {
    void reply.header('x-request-id', String(req.id));
  });
  installApiKeyAuth(fastify, config);
  // No enableShutdownHooks(): main.ts installs the graceful SIGTERM handler (graceful-shutdown.ts).
  return app;
}
