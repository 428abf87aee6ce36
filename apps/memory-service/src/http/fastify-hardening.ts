import { AppConfig, DomainError, invalid } from '@app/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isUtf8 } from 'node:buffer';
import { createServer, IncomingMessage, RequestListener, Server } from 'node:http';
import type { Socket } from 'node:net';
import { JsonShapeIssue, scanJsonShape } from './json-duplicates';
import { Problem, sendProblem, toProblem } from './problem.filter';
import { applySecurityHeaders, SECURITY_HEADERS } from './security-headers';

/** Path parameters up to this length reach the controllers, which answer an over-long id with 400 INVALID_ID. */
const MAX_PARAM_LENGTH = 2048;

/** Errors the router raises before any hook or filter runs (malformed %-encoding, huge params) → problem+json. */
function frameworkErrors(error: Error, _req: FastifyRequest, reply: FastifyReply): void {
  applySecurityHeaders(reply.raw);
  sendProblem(reply, toProblem(error));
}

const RAW_SECURITY_HEADERS = Object.entries(SECURITY_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

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
    socket.write(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json; charset=utf-8\r\nContent-Length: ` +
        `${Buffer.byteLength(body)}\r\n${RAW_SECURITY_HEADERS}Connection: close\r\n\r\n${body}`,
    );
  }
  // A lingering close (as nginx does): the client may still be sending its body, and a reset now would reach it
  // before it read the answer (the fuzzer saw `write ECONNRESET` instead of the 431). FIN first, then the socket
  // goes after a short grace however the client behaves.
  socket.end();
  socket.resume(); // read and drop what still comes
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/** Fastify options that keep every rejection a problem+json 4xx (spread into the FastifyAdapter options). */
export const hardenedFastifyOptions = {
  routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
  frameworkErrors,
  clientErrorHandler,
};

/** How often Node looks for requests past REQUEST_TIMEOUT_MS (its default, 30 s, let slow bodies linger long). */
const CONNECTIONS_CHECK_MS = 1_000;

type ServerLimits = Pick<AppConfig, 'requestTimeoutMs' | 'maxConnections' | 'headersTimeoutMs' | 'maxConnectionsPerIp'>;

/**
 * The HTTP server (Fastify's `serverFactory`): a request must arrive whole within REQUEST_TIMEOUT_MS (slow bodies
 * were never timed out: 50 trickling sockets stayed open for minutes), and at most MAX_CONNECTIONS are open. DESIGN
 * §13: a connection that has not sent a complete request head within HEADERS_TIMEOUT_MS is closed (idle sockets
 * held the connection cap for the whole request timeout), and one address holds at most MAX_CONNECTIONS_PER_IP.
 */
export function serverOptions(config: ServerLimits) {
  return {
    serverFactory: (handler: RequestListener): Server => {
      const server = createServer(
        {
          requestTimeout: config.requestTimeoutMs,
          headersTimeout: Math.min(config.headersTimeoutMs, config.requestTimeoutMs),
          connectionsCheckingInterval: CONNECTIONS_CHECK_MS,
        },
        handler,
      );
      server.maxConnections = config.maxConnections;
      capConnectionsPerAddress(server, config.maxConnectionsPerIp);
      return server;
    },
  };
}

/** Closes, as it is accepted, each connection past `max` open from one address (before it can send anything). */
function capConnectionsPerAddress(server: Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

/**
 * JSON bodies only: with Nest's parsers off (`bodyParser: false`) Fastify keeps its JSON parser
 * (1 MiB, `__proto__`/`constructor` refused); text/plain goes too, so any other body is 415. Form
 * bodies would let any web page drive an unauthenticated local service with a plain HTML form.
 * The JSON parser is strict: invalid UTF-8 is 400 INVALID_UTF8 (it was stored as U+FFFD) and a key twice in one
 * object is 400 DUPLICATE_KEY (the last one silently won). §13: a value nested deeper than 64 is 400 VALIDATION_FAILED
 * (naming the field) and more than MAX_JSON_KEYS keys 413 JSON_TOO_MANY_KEYS, found by a linear scan that stops at the
 * first problem, before any parse.
 */
export function acceptJsonOnly(fastify: FastifyInstance, config: Pick<AppConfig, 'maxJsonKeys'>): void {
  const limits = { maxDepth: MAX_JSON_DEPTH, maxKeys: config.maxJsonKeys };
  fastify.removeContentTypeParser('text/plain');
  // §8: a JSON write with no body at all (`POST …/commands/end-round` from a client that always sends the header) is
  // `{}`.
  const json = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body: Buffer, done) => {
    if (body.length === 0) return done(null, {});
    if (!isUtf8(body))
      return done(new DomainError('invalid', 'INVALID_UTF8', 'the body is not valid UTF-8'), undefined);
    const text = body.toString('utf8');
    const issue = scanJsonShape(text, limits);
    if (issue !== null) return done(shapeError(issue), undefined);
    json(req, text, done);
  });
  lingerOnEarlyReply(fastify);
}

/** §13: values nested deeper than this inside the body are refused before it is parsed (as content's 64 were). */
export const MAX_JSON_DEPTH = 64;

function shapeError(issue: JsonShapeIssue): DomainError {
  if (issue.kind === 'duplicate')
    return new DomainError(
      'invalid',
      'DUPLICATE_KEY',
      `the key ${JSON.stringify(issue.key.slice(0, 100))} appears twice in one object`,
    );
  if (issue.kind === 'keys')
    return new DomainError('too_large', 'JSON_TOO_MANY_KEYS', `the body holds more than ${issue.max} keys`);
  // The answer the schema gave once the body was parsed, now given before: 400 naming the field.
  const message = `must nest at most ${issue.max} levels deep`;
  return invalid('VALIDATION_FAILED', `invalid body: ${issue.path || '(body)'}: ${message}`, [
    { path: issue.path, message },
  ]);
}

/** Bytes and time a refused request may still send before its connection is closed. */
const LINGER_BYTES = 64 * 1024 * 1024;
const LINGER_MS = 10_000;

/**
 * A lingering close: answering before the body has arrived (413, 401, …) used to close the socket under a client
 * still sending, which read EPIPE instead of its answer. The answer goes out with `connection: close`, then the
 * rest of the body is read and discarded (up to LINGER_BYTES or LINGER_MS) before the socket is closed.
 */
function lingerOnEarlyReply(fastify: FastifyInstance): void {
  fastify.addHook('onSend', async (req, reply, payload) => {
    const raw: IncomingMessage = req.raw;
    if (raw.complete || reply.statusCode < 400) return payload;
    void reply.header('connection', 'close');
    const socket = raw.socket as Socket & { destroySoon?: () => void };
    // Node ends a `connection: close` exchange with destroySoon(), which resets the connection while bytes still come
    // in.
    socket.destroySoon = () => {
      let received = 0;
      const close = () => socket.destroy();
      const timer = setTimeout(close, LINGER_MS);
      timer.unref();
      socket.once('close', () => clearTimeout(timer));
      raw.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > LINGER_BYTES) close();
      });
      raw.once('end', close);
      raw.resume();
      socket.end();
    };
    return payload;
  });
}
