import { DomainError, ErrorKind } from '@app/common';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';

const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  precondition: 412,
  too_large: 413,
  unprocessable: 422,
  unavailable: 503,
};

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** Fastify's own request errors (before a handler runs) → stable codes. */
const FASTIFY_CODES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_CONTENT_LENGTH',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
  FST_ERR_BAD_URL: 'INVALID_URL',
  FST_ERR_MAX_PARAM_LENGTH: 'URI_TOO_LONG',
};

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: unknown[];
}

/** Maps any error to application/problem+json; only unexpected failures are 5xx. */
export function toProblem(err: unknown): Problem {
  if (err instanceof DomainError) {
    const status = STATUS[err.kind];
    return {
      type: `https://lorekeeper.dev/problems/${err.code.toLowerCase()}`,
      title: TITLES[status],
      status,
      detail: err.message,
      code: err.code,
      ...(err.errors ? { errors: err.errors } : {}),
    };
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const code = httpCode(status, err.message);
    return { type: 'about:blank', title: TITLES[status] ?? 'Error', status, detail: err.message, code };
  }
  const e = err as { statusCode?: number; code?: string; message?: string };
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    const code = (e.code && FASTIFY_CODES[e.code]) ?? (/JSON/i.test(e.message ?? '') ? 'INVALID_JSON' : 'BAD_REQUEST');
    return {
      type: 'about:blank',
      title: TITLES[e.statusCode] ?? 'Bad Request',
      status: e.statusCode,
      detail: e.message ?? 'bad request',
      code,
    };
  }
  return { type: 'about:blank', title: TITLES[500], status: 500, detail: 'internal error', code: 'INTERNAL' };
}

/** Framework errors (routing, body parsing) → stable codes. */
function httpCode(status: number, message: string): string {
  if (status === 404) return 'ROUTE_NOT_FOUND';
  if (status === 413) return 'BODY_TOO_LARGE';
  if (status === 415) return 'UNSUPPORTED_MEDIA_TYPE';
  if (status === 400 && /JSON/i.test(message)) return 'INVALID_JSON';
  if (status === 400 && /content-type|media type/i.test(message)) return 'UNSUPPORTED_MEDIA_TYPE';
  return `HTTP_${status}`;
}

export function sendProblem(reply: FastifyReply, problem: Problem): void {
  void reply
    .status(problem.status)
    .header('content-type', 'application/problem+json; charset=utf-8')
    .send(JSON.stringify(problem));
}

/** Codes answered with `Retry-After` (seconds): DESIGN §13's BUSY, past READ_QUEUE waiting reads. */
const RETRY_AFTER_SECONDS: Record<string, number> = { BUSY: 1 };

/**
 * Answers `exception` as problem+json on `reply`: `Retry-After` on a refusal the caller can act on, a log line on a
 * 5xx. The global exception filter's answer, also used by the routes served without Nest's pipeline (direct-routes.ts).
 */
export function answerProblem(exception: unknown, req: FastifyRequest, reply: FastifyReply, logger: Logger): void {
  const problem = toProblem(exception);
  // A refusal the caller can act on (503 BUSY) is no failure of the service: told when to retry, not logged.
  const retryAfter = exception instanceof DomainError ? RETRY_AFTER_SECONDS[exception.code] : undefined;
  if (retryAfter !== undefined) void reply.header('retry-after', String(retryAfter));
  else if (problem.status >= 500)
    // The request id in the text: below info, requests are not scoped for logs (observability/logger.ts).
    logger.error(`${req.method} ${req.url} (request ${req.id}) failed: ${(exception as Error)?.stack ?? exception}`);
  sendProblem(reply, problem);
}

/** The one global exception filter. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    answerProblem(exception, ctx.getRequest<FastifyRequest>(), ctx.getResponse<FastifyReply>(), this.logger);
  }
}
