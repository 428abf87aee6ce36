import type OpenAI from 'openai';
import { SummarizerCallError, toCallError } from './call-error';
import { PromptSummarizer } from './prompt.summarizer';
import { SummaryResult } from './summarizer.port';
import { SummaryPrompt } from './summary-prompts';

export interface OpenAiSummarizerOptions {
  /** Up to and including `/v1`, e.g. `http://localhost:11434/v1` (the SDK appends `/chat/completions`). */
  baseURL: string;
  model: string;
  /** Optional: local servers (Ollama, llama.cpp, vLLM) need none, and then no Authorization header is sent. */
  apiKey?: string;
  maxOutputTokens?: number;
}

type OpenAiSdk = typeof import('openai');

/** The SDK (≈115 modules) is loaded when this adapter is built, so other summarizers boot without it. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on use (cold start, docs/performance.md)
const loadSdk = (): OpenAiSdk => require('openai') as OpenAiSdk;

/**
 * Summarizer on the OpenAI-compatible Chat Completions API (Ollama, llama.cpp's server, vLLM, LM Studio,
 * hosted routers): one request per call, no SDK retries (the retry policy owns them).
 */
export class OpenAiSummarizer extends PromptSummarizer {
  readonly name = 'openai';
  readonly model: string;
  private readonly client: OpenAI;
  private readonly apiKey?: string;
  private readonly sdk: OpenAiSdk;

  constructor(options: OpenAiSummarizerOptions) {
    super(options.maxOutputTokens);
    if (!options.baseURL) throw new Error('OpenAiSummarizer needs a base URL');
    if (!options.model) throw new Error('OpenAiSummarizer needs a model');
    this.apiKey = options.apiKey || undefined;
    this.model = options.model;
    this.sdk = loadSdk();
    this.client = new this.sdk.default({
      // The SDK insists on a key; without one the placeholder never leaves: the Authorization header is removed below.
      apiKey: this.apiKey ?? 'no-key',
      baseURL: options.baseURL,
      maxRetries: 0,
      // Explicit nulls so OPENAI_ORG_ID / OPENAI_PROJECT_ID from the environment never reach a third-party server.
      organization: null,
      project: null,
      defaultHeaders: this.apiKey ? undefined : { Authorization: null },
    });
  }

  protected async send(prompt: SummaryPrompt, maxTokens: number, signal?: AbortSignal): Promise<SummaryResult> {
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.client.chat.completions.create(
        {
          model: this.model,
          // max_tokens, not max_completion_tokens: the older name is the one every compatible server reads.
          max_tokens: maxTokens,
          messages: [
            { role: 'system', content: prompt.system },
            { role: 'user', content: prompt.user },
          ],
        },
        { signal },
      );
    } catch (error) {
      throw this.safeError(error);
    }
    // A non-JSON body (a proxy's HTML page, garbage) comes back from the SDK as a string.
    if (!completion || typeof completion !== 'object' || !Array.isArray(completion.choices)) {
      throw new SummarizerCallError('unexpected response: not a chat completion');
    }
    const choice = completion.choices[0];
    const content = choice?.message?.content;
    if (typeof content !== 'string') {
      const refusal = choice?.message?.refusal ? '; refused' : '';
      throw new SummarizerCallError(
        `no text in response (finish_reason: ${choice?.finish_reason ?? 'none'}${refusal})`,
      );
    }
    const usage = completion.usage;
    return {
      text: content,
      // prompt_tokens already includes the cached ones (OpenAI's automatic prompt caching).
      inputTokens: count(usage?.prompt_tokens),
      outputTokens: count(usage?.completion_tokens),
      cacheReadTokens: count(usage?.prompt_tokens_details?.cached_tokens),
      cacheWriteTokens: 0,
      model: this.model,
    };
  }

  /** SDK errors as one concise line (`429 rate limited`), with our key scrubbed. */
  private safeError(error: unknown): Error {
    return toCallError(error, this.apiKey, (e) =>
      e instanceof this.sdk.APIError && typeof e.status === 'number'
        ? { text: e.message.replace(/\s+/g, ' ').trim(), status: e.status }
        : null,
    );
  }
}

/** A provider's token count, or 0 when it sent none or nonsense. */
const count = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
