import type { LoggerService } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import pino, { DestinationStream, Logger } from 'pino';
import pinoHttp from 'pino-http';

/**
 * Our own small replacement for nestjs-pino (whose 5.x wants Node ≥ 22.12, an EBADENGINE on Node 20):
 * one pino root logger, pino-http request logs keyed by the x-request-id, and a Nest LoggerService
 * that writes through the request's child logger when there is one (so Nest logs made while serving a
 * request carry its id) and through the root logger otherwise.
 */
export interface LoggingOptions {
  level: string;
  /** Where the JSON lines go (tests capture them); default stdout, pretty-printed when it is a TTY. */
  destination?: { write(line: string): void };
}

const REDACT = ['req.headers.authorization', 'req.headers["x-api-key"]'];

export class Logging {
  readonly root: Logger;
  private readonly perRequest = new AsyncLocalStorage<Logger>();

  constructor(options: LoggingOptions) {
    const pretty = !options.destination && process.stdout.isTTY && options.level !== 'silent';
    this.root = pretty
      ? pino({
          level: options.level,
          redact: REDACT,
          transport: { target: 'pino-pretty', options: { singleLine: true } },
        })
      : pino({ level: options.level, redact: REDACT }, (options.destination ?? process.stdout) as DestinationStream);
  }

  /** The logger of the request being served, or the root logger outside a request. */
  get current(): Logger {
    return this.perRequest.getStore() ?? this.root;
  }

  /** Logs each request once when its response is sent (pino-http), and scopes Nest logs to it. */
  installRequestLogging(fastify: FastifyInstance): void {
    // pino-http writes each response at info: below it nothing would be written, so skip the per-request work —
    // its child loggers and the AsyncLocalStorage scope, whose promise hooks tax every promise of the process
    // (together ≈ 20 % of a one-message write's CPU, `npm run bench -- --only ingest`). Warnings made while
    // serving a request then carry no request fields; a 5xx's log line names its request id itself (ProblemFilter).
    if (!this.root.isLevelEnabled('info')) return;
    const http = pinoHttp({
      logger: this.root,
      // The id Fastify gave the request (bootstrap.ts puts it in x-request-id): one id in logs, events and worker logs.
      genReqId: (req) => String(req.headers['x-request-id'] ?? randomUUID()),
      customProps: (req) => ({ correlationId: (req as { id?: unknown }).id }),
    });
    fastify.addHook('onRequest', (req, reply, done) => {
      http(req.raw, reply.raw);
      const log = (req.raw as { log?: Logger }).log ?? this.root;
      // run(), not enterWith(): the rest of the request's hooks and handler continue inside done().
      this.perRequest.run(log, done);
    });
  }

  /** A Nest LoggerService (for app.useLogger) writing through this logging. */
  nestLogger(): LoggerService {
    return new NestPinoLogger(this);
  }
}

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/** Same mapping as nestjs-pino's Logger: the last optional parameter is the Nest context; objects become fields. */
class NestPinoLogger implements LoggerService {
  constructor(private readonly logging: Logging) {}

  verbose(message: unknown, ...rest: unknown[]): void {
    this.call('trace', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.call('debug', message, rest);
  }
  log(message: unknown, ...rest: unknown[]): void {
    this.call('info', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.call('warn', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.call('error', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.call('fatal', message, rest);
  }

  private call(level: Level, message: unknown, rest: unknown[]): void {
    const fields: Record<string, unknown> = {};
    let params = rest;
    if (rest.length > 0) {
      fields.context = rest[rest.length - 1];
      params = rest.slice(0, -1);
    }
    const logger = this.logging.current;
    if (message instanceof Error) {
      fields.err = message;
      logger[level](fields, ...(params as []));
    } else if (typeof message === 'object' && message !== null) {
      logger[level](Object.assign(fields, message), ...(params as []));
    } else if (
      level === 'error' &&
      params.length === 1 &&
      typeof params[0] === 'string' &&
      /\n\s*at /.test(params[0])
    ) {
      // Nest's exception handlers call error(message, stack, context): keep the stack as an error.
      const err = new Error(String(message));
      err.stack = params[0];
      logger.error({ ...fields, err });
    } else {
      logger[level](fields, String(message), ...(params as []));
    }
  }
}
