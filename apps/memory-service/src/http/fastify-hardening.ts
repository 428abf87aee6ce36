import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { Problem, sendProblem, toProblem } from './problem.filter';

/** Path parameters up to this length reach the controllers, which answer an over-long id with 400 INVALID_ID. */
const MAX_PARAM_LENGTH = 2048;

/** Errors the router raises before any hook or filter runs (malformed %-encoding, huge params) → problem+json. */
function frameworkErrors(error: Error, _req: FastifyRequest, reply: FastifyReply): void {
  sendProblem(reply, toProblem(error));
}

/** HTTP parse errors (bad framing, oversized headers, timeouts) on the raw socket → problem+json, then close. */
function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, title, code, detail]: [number, string, string, string] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'REQUEST_TIMEOUT', 'the request took too long to arrive']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'HEADERS_TOO_LARGE', 'the request line and headers exceed 16 KiB']
        : [400, 'Bad Request', 'MALFORMED_HTTP', 'the request is not well-formed HTTP/1.1'];
  const problem: Problem = { type: 'about:blank', title, status, detail, code };
  const body = JSON.stringify(problem);
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(err);
}

/** Fastify options that keep every rejection a problem+json 4xx (spread into the FastifyAdapter options). */
export const hardenedFastifyOptions = {
  routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
  frameworkErrors,
  clientErrorHandler,
};

/**
 * JSON bodies only: with Nest's parsers off (`bodyParser: false`) Fastify keeps its JSON parser
 * (1 MiB, `__proto__`/`constructor` refused); text/plain goes too, so any other body is 415. Form
 * bodies would let any web page drive an unauthenticated local service with a plain HTML form.
 */
export function acceptJsonOnly(fastify: FastifyInstance): void {
  fastify.removeContentTypeParser('text/plain');
  // §8: a JSON write with no body at all (`POST …/commands/end-round` from a client that always sends the header) is `{}`.
  const json = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => (body === '' ? done(null, {}) : json(req, body as string, done)));
}
