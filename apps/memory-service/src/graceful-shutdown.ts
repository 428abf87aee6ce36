import { Logger } from '@nestjs/common';
import type { INestApplication } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import type { Server } from 'node:http';

export interface ShutdownOptions {
  /** The whole shutdown must end within this (DESIGN §9: 10 s). */
  deadlineMs?: number;
  /** After this, connections still open (e.g. a long context wait) are cut so the deadline holds. */
  graceMs?: number;
  exit?: (code: number) => void;
}

/**
 * SIGTERM/SIGINT: stop accepting, let in-flight requests finish, stop the memory worker (an
 * unfinished summary is abandoned, nothing advanced), close the database, exit 0. Nest's own
 * signal hooks re-raise the signal (exit 143), so the service uses this instead.
 */
export function installGracefulShutdown(app: INestApplication, options: ShutdownOptions = {}): void {
  const logger = new Logger('shutdown');
  const deadlineMs = options.deadlineMs ?? 9_500;
  const graceMs = options.graceMs ?? 7_000;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let started = false;
  // Keep-alive clients would hold their sockets open after their last answer and stall the close.
  const fastify = app.getHttpAdapter().getInstance() as FastifyInstance;
  fastify.addHook('onSend', async (_req, reply) => {
    if (started) void reply.header('connection', 'close');
  });
  const onSignal = (signal: NodeJS.Signals) => {
    if (started) return;
    started = true;
    logger.log(`${signal} received: draining requests, stopping the memory worker, closing the database`);
    const server = app.getHttpServer() as Server;
    const reaper = setInterval(() => server.closeIdleConnections(), 50);
    reaper.unref();
    const grace = setTimeout(() => {
      logger.warn(`requests still open after ${graceMs} ms: closing their connections`);
      server.closeAllConnections();
    }, graceMs);
    const hard = setTimeout(() => {
      logger.error(`shutdown did not finish within ${deadlineMs} ms; exiting`);
      exit(1);
    }, deadlineMs);
    grace.unref();
    hard.unref();
    app.close().then(
      () => {
        clearInterval(reaper);
        clearTimeout(grace);
        clearTimeout(hard);
        logger.log('shutdown complete');
        exit(0);
      },
      (err: unknown) => {
        logger.error(`shutdown failed: ${(err as Error)?.stack ?? err}`);
        exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
