import {
  defaultSummaryText,
  estimateTokens,
  MockModelServer,
  MockRequest,
  MockTransportResponse,
  startMockModelServer,
  transcriptOf,
} from './mock-http';

export { transcriptOf };

type AnthropicUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
};

/** What the mock does with one request. */
export type MockAnthropicResponse =
  | { text: string; delayMs?: number; usage?: AnthropicUsage }
  | { content: unknown[]; delayMs?: number; stopReason?: string }
  | MockTransportResponse;

/** `n` is the 0-based number of the request (its position in `mock.requests`). */
export type MockAnthropicHandler = (body: any, n: number) => MockAnthropicResponse | Promise<MockAnthropicResponse>;

export type MockAnthropicRequest = MockRequest;

/** `baseUrl` is the server root (pass as ANTHROPIC_BASE_URL): the SDK appends `/v1/messages`. */
export type MockAnthropic = MockModelServer<MockAnthropicResponse>;

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

/** Deterministic two sentences derived from the request, so tests can predict the answer. */
export const defaultMockHandler: MockAnthropicHandler = (body) => ({ text: defaultSummaryText(body) });

/** Like the real API: a system block marked cache_control is written to the cache once, then read from it. */
function usageOf(body: any, outText: string, cache: Set<string>): AnthropicUsage {
  const blocks: any[] = Array.isArray(body?.system) ? body.system : [];
  const cached = blocks.filter((b) => b?.cache_control).map((b) => String(b.text ?? ''));
  const key = cached.join('\n');
  const cachedTokens = key ? estimateTokens(key) : 0;
  const hit = key !== '' && cache.has(key);
  if (key) cache.add(key);
  const rest = {
    ...body,
    system: typeof body?.system === 'string' ? body.system : blocks.filter((b) => !b?.cache_control),
  };
  return {
    input_tokens: estimateTokens(JSON.stringify(rest ?? {})),
    output_tokens: estimateTokens(outText),
    cache_creation_input_tokens: hit ? 0 : cachedTokens,
    cache_read_input_tokens: hit ? cachedTokens : 0,
  };
}

/** A local HTTP stand-in for the Anthropic Messages API, for e2e tests and benchmarks. */
export async function startMockAnthropic(): Promise<MockAnthropic> {
  const cache = new Set<string>();
  const server = await startMockModelServer<MockAnthropicResponse>({
    path: '/v1/messages',
    defaultHandler: defaultMockHandler,
    errorBody: (status) => {
      const type = ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
      return { type: 'error', error: { type, message: `mock ${status}` } };
    },
    notFound: (method, path) => ({
      type: 'error',
      error: { type: 'not_found_error', message: `no route ${method} ${path}` },
    }),
    success(response, body, n) {
      const content =
        'content' in response
          ? response.content
          : [{ type: 'text', text: (response as { text: string }).text, citations: null }];
      const outText = content.map((b: any) => (typeof b?.text === 'string' ? b.text : '')).join('');
      const usage = ('usage' in response && response.usage) || usageOf(body, outText, cache);
      const payload = {
        id: `msg_mock_${n}`,
        type: 'message',
        role: 'assistant',
        model: typeof body?.model === 'string' ? body.model : 'claude-haiku-4-5',
        content,
        container: null,
        stop_reason: ('stopReason' in response && response.stopReason) || 'end_turn',
        stop_sequence: null,
        stop_details: null,
        diagnostics: null,
        usage,
      };
      return {
        payload,
        usage: {
          input: usage.input_tokens,
          output: usage.output_tokens,
          cacheRead: usage.cache_read_input_tokens ?? 0,
          cacheWrite: usage.cache_creation_input_tokens ?? 0,
        },
      };
    },
  });
  const reset = server.reset.bind(server);
  return Object.assign(server, {
    reset() {
      cache.clear();
      reset();
    },
  });
}
