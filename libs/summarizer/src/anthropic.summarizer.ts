import type Anthropic from '@anthropic-ai/sdk';
import { SummarizerCallError, toCallError } from './call-error';
import { PromptSummarizer } from './prompt.summarizer';
import { SummaryResult } from './summarizer.port';
import { SummaryPrompt } from './summary-prompts';

export interface AnthropicSummarizerOptions {
  apiKey: string;
  /** Server root without `/v1` (the SDK appends `/v1/messages`), e.g. `http://127.0.0.1:4010`. */
  baseURL?: string;
  model?: string;
  maxOutputTokens?: number;
}

export const DEFAULT_ANTHROPIC_MODEL = 'claude-haiku-4-5';

type AnthropicSdk = typeof import('@anthropic-ai/sdk');

/**
 * The SDK (≈250 modules, ≈0.15 s of CPU) is loaded when this adapter is built, so other summarizers boot without it.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on use (cold start, docs/performance.md)
const loadSdk = (): AnthropicSdk => require('@anthropic-ai/sdk') as AnthropicSdk;

/** Summarizer on the Anthropic Messages API: one request per call, no SDK retries (the retry policy owns them). */
export class AnthropicSummarizer extends PromptSummarizer {
  readonly name = 'anthropic';
  readonly model: string;
  private readonly client: Anthropic;
  private readonly apiKey: string;
  private readonly sdk: AnthropicSdk;

  constructor(options: AnthropicSummarizerOptions) {
    super(options.maxOutputTokens);
    if (!options.apiKey) throw new Error('AnthropicSummarizer needs an API key');
    this.apiKey = options.apiKey;
    this.model = options.model || DEFAULT_ANTHROPIC_MODEL;
    // No baseURL falls back to the SDK's own ANTHROPIC_BASE_URL / api.anthropic.com; maxRetries 0: the policy retries.
    this.sdk = loadSdk();
    this.client = new this.sdk.default({
      apiKey: options.apiKey,
      baseURL: options.baseURL || undefined,
      maxRetries: 0,
    });
  }

  protected async send(prompt: SummaryPrompt, maxTokens: number, signal?: AbortSignal): Promise<SummaryResult> {
    let message: Anthropic.Message;
    try {
      message = await this.client.messages.create(
        {
          model: this.model,
          max_tokens: maxTokens,
          // The fixed instructions, cached by the provider across calls of the same kind (reads bill at a tenth).
          system: [{ type: 'text', text: prompt.system, cache_control: { type: 'ephemeral' } }],
          messages: [{ role: 'user', content: prompt.user }],
        },
        { signal },
      );
    } catch (error) {
      throw this.safeError(error);
    }
    // A non-JSON body (e.g. a proxy's HTML page) comes back from the SDK as a string.
    if (!message || !Array.isArray(message.content)) {
      throw new SummarizerCallError('unexpected response: not a Messages API message');
    }
    const texts = message.content.filter((block): block is Anthropic.TextBlock => block.type === 'text');
    if (texts.length === 0) {
      const kinds = message.content.map((block) => block.type).join(', ') || 'none';
      throw new SummarizerCallError(
        `no text in response (content blocks: ${kinds}; stop_reason: ${message.stop_reason})`,
      );
    }
    const usage = message.usage;
    const cacheRead = usage?.cache_read_input_tokens ?? 0;
    const cacheWrite = usage?.cache_creation_input_tokens ?? 0;
    return {
      text: texts.map((block) => block.text ?? '').join(''),
      // Anthropic's input_tokens leaves the cached part out; ours counts every prompt token (see SummaryResult).
      inputTokens: (usage?.input_tokens ?? 0) + cacheRead + cacheWrite,
      outputTokens: usage?.output_tokens ?? 0,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      // The configured name, not the provider's dated alias: prices and failed calls use the same label.
      model: this.model,
    };
  }

  /** SDK errors as one concise line (`529 overloaded_error: Overloaded`), with our key scrubbed. */
  private safeError(error: unknown): Error {
    return toCallError(error, this.apiKey, (e) => {
      if (!(e instanceof this.sdk.APIError) || typeof e.status !== 'number') return null;
      const detail = [e.type, e.apiMessage].filter(Boolean).join(': ') || e.message;
      return { text: detail.startsWith(String(e.status)) ? detail : `${e.status} ${detail}`, status: e.status };
    });
  }
}
