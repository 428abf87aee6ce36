import { createServer, IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';

/** What the mock does with one request. */
export type MockAnthropicResponse =
  | { text: string; delayMs?: number; usage?: { input_tokens: number; output_tokens: number } }
  | { content: unknown[]; delayMs?: number; stopReason?: string }
  | { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number }
  | { reset: true; delayMs?: number }
  | { hang: true };

/** `n` is the 0-based number of the request (its position in `mock.requests`). */
export type MockAnthropicHandler = (body: any, n: number) => MockAnthropicResponse | Promise<MockAnthropicResponse>;

export interface MockAnthropicRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface MockAnthropic {
  /** Pass as ANTHROPIC_BASE_URL / baseURL: server root, the SDK appends `/v1/messages`. */
  baseUrl: string;
  requests: MockAnthropicRequest[];
  setHandler(handler: MockAnthropicHandler): void;
  /** Clears `requests` and restores the default handler. */
  reset(): void;
  close(): Promise<void>;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const estimateTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** The transcript lines of the prompt's last user turn, decoded from their JSON lines. */
export function transcriptOf(body: any): Array<{ i: number; role: string; speaker?: string; text: string }> {
  const turns = Array.isArray(body?.messages) ? body.messages : [];
  const last = turns[turns.length - 1]?.content;
  const user = typeof last === 'string' ? last : Array.isArray(last) ? last.map((b: any) => b.text ?? '').join('\n') : '';
  const match = /<transcript>\n([\s\S]*?)\n?<\/transcript>/.exec(user);
  if (!match) return [];
  return match[1]
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
}

/** Deterministic two sentences derived from the request, so tests can predict the answer. */
export const defaultMockHandler: MockAnthropicHandler = (body) => {
  const lines = transcriptOf(body);
  const lastWords = lines.length ? lines[lines.length - 1].text.split(/\s+/).filter(Boolean).slice(0, 6).join(' ') : 'nothing';
  return { text: `Summary of ${lines.length} messages: ${lastWords.replace(/[.!?]+$/, '')}. The story moves on.` };
};

function messageJson(
  n: number,
  body: any,
  content: unknown[],
  stopReason: string,
  usage?: { input_tokens: number; output_tokens: number },
) {
  const outText = content.map((b: any) => (typeof b?.text === 'string' ? b.text : '')).join('');
  return {
    id: `msg_mock_${n}`,
    type: 'message',
    role: 'assistant',
    model: typeof body?.model === 'string' ? body.model : 'claude-haiku-4-5',
    content,
    container: null,
    stop_reason: stopReason,
    stop_sequence: null,
    stop_details: null,
    diagnostics: null,
    usage: usage ?? {
      input_tokens: estimateTokens(JSON.stringify(body ?? {})),
      output_tokens: estimateTokens(outText),
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
    },
  };
}

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

/** A local HTTP stand-in for the Anthropic Messages API, for e2e tests and benchmarks. */
export async function startMockAnthropic(): Promise<MockAnthropic> {
  let handler: MockAnthropicHandler = defaultMockHandler;
  const requests: MockAnthropicRequest[] = [];
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
    if (req.method !== 'POST' || path !== '/v1/messages') {
      sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: `no route ${req.method} ${path}` } });
      return;
    }
    const n = requests.length;
    requests.push({ method: req.method, path, headers: req.headers, body });
    const response = await handler(body, n);
    if ('hang' in response) return; // the socket stays open until the client gives up or close() runs
    if (response.delayMs) await wait(response.delayMs);
    if (res.destroyed || res.writableEnded) return; // the client aborted while we waited
    if ('reset' in response) {
      req.socket.destroy();
    } else if ('status' in response) {
      const type = ERROR_TYPES[response.status] ?? (response.status >= 500 ? 'api_error' : 'invalid_request_error');
      const payload = response.body ?? { type: 'error', error: { type, message: `mock ${response.status}` } };
      sendJson(res, response.status, payload, response.headers);
    } else if ('content' in response) {
      sendJson(res, 200, messageJson(n, body, response.content, response.stopReason ?? 'end_turn'));
    } else {
      sendJson(res, 200, messageJson(n, body, [{ type: 'text', text: response.text, citations: null }], 'end_turn', response.usage));
    }
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      answer(req, res, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) => {
        if (!res.headersSent && !res.destroyed) {
          sendJson(res, 500, { type: 'error', error: { type: 'api_error', message: `mock handler failed: ${String(error)}` } });
        }
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
    setHandler(next) {
      handler = next;
    },
    reset() {
      requests.length = 0;
      handler = defaultMockHandler;
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
