import {
  defaultSummaryText,
  estimateTokens,
  MockModelServer,
  MockTransportResponse,
  startMockModelServer,
  transcriptOf,
} from './mock-http';

export { transcriptOf };

type OpenAiUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens: number };
};

/** One request's fate: an answer (`text: null` = a message without text), an error, garbage, a reset, a hang. */
export type MockOpenAiResponse =
  | { text: string | null; delayMs?: number; usage?: OpenAiUsage; finishReason?: string }
  | { choices: unknown[]; delayMs?: number; usage?: OpenAiUsage }
  | MockTransportResponse;

export type MockOpenAi = MockModelServer<MockOpenAiResponse> & {
  /** Pass as OPENAI_BASE_URL: the root plus `/v1`, the SDK appends `/chat/completions`. */
  baseUrl: string;
};

/** Deterministic two sentences derived from the request, so tests can predict the answer. */
export const defaultOpenAiHandler = (body: any): MockOpenAiResponse => ({ text: defaultSummaryText(body) });

/** A local HTTP stand-in for an OpenAI-compatible `/v1/chat/completions` (Ollama, llama.cpp, vLLM…). */
export async function startMockOpenAi(): Promise<MockOpenAi> {
  const server = await startMockModelServer<MockOpenAiResponse>({
    path: '/v1/chat/completions',
    defaultHandler: defaultOpenAiHandler,
    errorBody: (status) => ({
      error: {
        message: `mock ${status}`,
        type: status >= 500 ? 'server_error' : 'invalid_request_error',
        code: null,
        param: null,
      },
    }),
    notFound: (method, path) => ({ error: { message: `no route ${method} ${path}`, type: 'invalid_request_error' } }),
    success(response, body, n) {
      const choices =
        'choices' in response
          ? response.choices
          : [
              {
                index: 0,
                message: { role: 'assistant', content: (response as { text: string | null }).text, refusal: null },
                finish_reason: ('finishReason' in response && response.finishReason) || 'stop',
                logprobs: null,
              },
            ];
      const outText = choices
        .map((c: any) => (typeof c?.message?.content === 'string' ? c.message.content : ''))
        .join('');
      const prompt = estimateTokens(JSON.stringify(body?.messages ?? []));
      const usage: OpenAiUsage = ('usage' in response && response.usage) || {
        prompt_tokens: prompt,
        completion_tokens: estimateTokens(outText),
        total_tokens: prompt + estimateTokens(outText),
      };
      const payload = {
        id: `chatcmpl-mock-${n}`,
        object: 'chat.completion',
        created: 1_764_000_000,
        model: typeof body?.model === 'string' ? body.model : 'mock',
        choices,
        usage,
      };
      const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
      // Ledger convention: input counts uncached prompt tokens apart from cache reads.
      return {
        payload,
        usage: {
          input: usage.prompt_tokens - cached,
          output: usage.completion_tokens,
          cacheRead: cached,
          cacheWrite: 0,
        },
      };
    },
  });
  return Object.assign(server, { baseUrl: `${server.baseUrl}/v1` });
}
