import { createServer, IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';

/** Behaviours every mock model API shares; each mock adds its own success shapes. */
export type MockTransportResponse =
  | { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number }
  | { raw: string; contentType?: string; delayMs?: number }
  | { reset: true; delayMs?: number }
  | { hang: true };

export interface MockRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

/** Token usage the mock actually delivered in 200 answers (a response the client never received is not counted). */
export interface DeliveredUsage {
  calls: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface MockModelServer<R> {
  baseUrl: string;
  requests: MockRequest[];
  delivered: DeliveredUsage;
  /** Each delivered 200 answer: the request's body and the usage it reported. */
  answered: Array<{ n: number; body: any; usage: Omit<DeliveredUsage, 'calls'> }>;
  setHandler(handler: (body: any, n: number) => R | Promise<R>): void;
  /** Clears `requests` and `delivered` and restores the default handler. */
  reset(): void;
  close(): Promise<void>;
}

export interface MockModelSpec<R> {
  path: string;
  defaultHandler: (body: any, n: number) => R | Promise<R>;
  /** The JSON error body for a status without an explicit body. */
  errorBody(status: number): unknown;
  /** The 200 body of a success response and the usage it reports. */
  success(response: R, body: any, n: number): { payload: unknown; usage: Omit<DeliveredUsage, 'calls'> };
  notFound(method: string, path: string): unknown;
}

const emptyUsage = (): DeliveredUsage => ({ calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

function sendJson(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'request-id': 'req_mock',
    ...headers,
  });
  res.end(text);
}

/** A local HTTP stand-in for a model API (one POST route), for unit tests, e2e tests and benchmarks. */
export async function startMockModelServer<R extends object>(spec: MockModelSpec<R>): Promise<MockModelServer<R>> {
  let handler = spec.defaultHandler;
  const requests: MockRequest[] = [];
  const delivered = emptyUsage();
  const answered: MockModelServer<R>['answered'] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  async function answer(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    let body: any;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    if (req.method !== 'POST' || path !== spec.path) {
      sendJson(res, 404, spec.notFound(req.method ?? '', path));
      return;
    }
    const n = requests.length;
    requests.push({ method: req.method, path, headers: req.headers, body });
    const response = (await handler(body, n)) as R & Partial<MockTransportResponse> & { delayMs?: number };
    if ('hang' in response) return; // the socket stays open until the client gives up or close() runs
    if (response.delayMs) await wait(response.delayMs);
    if (res.destroyed || res.writableEnded) return; // the client aborted while we waited
    if ('reset' in response) {
      req.socket.destroy();
    } else if ('status' in response && typeof response.status === 'number') {
      sendJson(res, response.status, response.body ?? spec.errorBody(response.status), response.headers);
    } else if ('raw' in response && typeof response.raw === 'string') {
      res.writeHead(200, { 'content-type': response.contentType ?? 'application/json' });
      res.end(response.raw);
    } else {
      const { payload, usage } = spec.success(response, body, n);
      sendJson(res, 200, payload);
      delivered.calls += 1;
      delivered.input += usage.input;
      delivered.output += usage.output;
      delivered.cacheRead += usage.cacheRead;
      delivered.cacheWrite += usage.cacheWrite;
      answered.push({ n, body, usage });
    }
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      answer(req, res, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) => {
        if (!res.headersSent && !res.destroyed)
          sendJson(res, 500, { error: { message: `mock handler failed: ${String(error)}` } });
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    delivered,
    answered,
    setHandler(next) {
      handler = next;
    },
    reset() {
      requests.length = 0;
      answered.length = 0;
      Object.assign(delivered, emptyUsage());
      handler = spec.defaultHandler;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Hanging and keep-alive sockets would keep server.close() waiting forever.
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

export const estimateTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** The transcript lines of the prompt's last user turn, decoded (Messages and Chat Completions alike). */
export function transcriptOf(body: any): Array<{ i: number; role: string; speaker?: string; text: string }> {
  const turns = Array.isArray(body?.messages) ? body.messages : [];
  const last = turns[turns.length - 1]?.content;
  const user =
    typeof last === 'string' ? last : Array.isArray(last) ? last.map((b: any) => b.text ?? '').join('\n') : '';
  const match = /<transcript>\n([\s\S]*?)\n?<\/transcript>/.exec(user);
  if (!match) return [];
  return match[1]
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
}

/** Deterministic two sentences derived from the request, so tests can predict the answer. */
export function defaultSummaryText(body: any): string {
  const lines = transcriptOf(body);
  const lastWords = lines.length
    ? lines[lines.length - 1].text.split(/\s+/).filter(Boolean).slice(0, 6).join(' ')
    : 'nothing';
  return `Summary of ${lines.length} messages: ${lastWords.replace(/[.!?]+$/, '')}. The story moves on.`;
}
