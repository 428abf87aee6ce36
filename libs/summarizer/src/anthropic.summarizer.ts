import Anthropic, { APIError } from '@anthropic-ai/sdk';
import {
  DefineTermInput,
  LocationSummaryInput,
  NpcSummaryInput,
  RollingSummaryInput,
  Summarizer,
  SummaryResult,
  WorldSummaryInput,
} from './summarizer.port';
import { defineTermPrompt, locationPrompt, npcPrompt, rollingPrompt, SummaryPrompt, worldPrompt } from './summary-prompts';

export interface AnthropicSummarizerOptions {
  apiKey: string;
  /** Server root without `/v1` (the SDK appends `/v1/messages`), e.g. `http://127.0.0.1:4010`. */
  baseURL?: string;
  model?: string;
  maxOutputTokens?: number;
}

export const DEFAULT_ANTHROPIC_MODEL = 'claude-haiku-4-5';
const DEFAULT_MAX_OUTPUT_TOKENS = 400;

// Duck-typed: errors from Node internals (undici) fail `instanceof Error` inside test sandboxes.
const hasMessage = (value: unknown): value is { message: string } =>
  typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string';

/** A failed model call whose message is safe to log and record (no credentials). */
export class SummarizerCallError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'SummarizerCallError';
  }
}

/** Summarizer on the Anthropic Messages API: one request per call, no SDK retries (the retry policy owns them). */
export class AnthropicSummarizer implements Summarizer {
  readonly name = 'anthropic';
  readonly model: string;
  private readonly client: Anthropic;
  private readonly apiKey: string;
  private readonly maxOutputTokens: number;

  constructor(options: AnthropicSummarizerOptions) {
    if (!options.apiKey) throw new Error('AnthropicSummarizer needs an API key');
    this.apiKey = options.apiKey;
    this.model = options.model || DEFAULT_ANTHROPIC_MODEL;
    this.maxOutputTokens = options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
    // No baseURL falls back to the SDK's own ANTHROPIC_BASE_URL / api.anthropic.com; maxRetries 0: the policy retries.
    this.client = new Anthropic({ apiKey: options.apiKey, baseURL: options.baseURL || undefined, maxRetries: 0 });
  }

  summarizeLocation(input: LocationSummaryInput, signal?: AbortSignal): Promise<SummaryResult> {
    return this.send(locationPrompt(input), this.maxOutputTokens, signal);
  }

  summarizeNpc(input: NpcSummaryInput, signal?: AbortSignal): Promise<SummaryResult> {
    return this.send(npcPrompt(input), this.maxOutputTokens, signal);
  }

  summarizeWorld(input: WorldSummaryInput, signal?: AbortSignal): Promise<SummaryResult> {
    return this.send(worldPrompt(input), this.maxOutputTokens, signal);
  }

  summarizeRolling(input: RollingSummaryInput, signal?: AbortSignal): Promise<SummaryResult> {
    // Room for maxWords words (~1.5 tokens each) even when the default output budget is smaller.
    return this.send(rollingPrompt(input), Math.max(this.maxOutputTokens, Math.ceil(input.maxWords * 1.5) + 50), signal);
  }

  defineTerm(input: DefineTermInput, signal?: AbortSignal): Promise<SummaryResult> {
    return this.send(defineTermPrompt(input), this.maxOutputTokens, signal);
  }

  private async send(prompt: SummaryPrompt, maxTokens: number, signal?: AbortSignal): Promise<SummaryResult> {
    let message: Anthropic.Message;
    try {
      message = await this.client.messages.create(
        {
          model: this.model,
          max_tokens: maxTokens,
          system: prompt.system,
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
      throw new SummarizerCallError(`no text in response (content blocks: ${kinds}; stop_reason: ${message.stop_reason})`);
    }
    const usage = message.usage;
    return {
      text: texts.map((block) => block.text ?? '').join(''),
      inputTokens: (usage?.input_tokens ?? 0) + (usage?.cache_creation_input_tokens ?? 0) + (usage?.cache_read_input_tokens ?? 0),
      outputTokens: usage?.output_tokens ?? 0,
    };
  }

  /** SDK errors as one concise line (`529 overloaded_error: Overloaded`), with our key scrubbed. */
  private safeError(error: unknown): Error {
    if (!hasMessage(error)) return new SummarizerCallError(this.scrub(String(error)));
    const name = (error as { name?: unknown }).name;
    if (name === 'AbortError' || name === 'APIUserAbortError') return error as Error;
    if (error instanceof APIError && typeof error.status === 'number') {
      const detail = [error.type, error.apiMessage].filter(Boolean).join(': ') || error.message;
      const text = detail.startsWith(String(error.status)) ? detail : `${error.status} ${detail}`;
      return new SummarizerCallError(this.scrub(text), error.status);
    }
    // Connection errors hide the useful part ("other side closed", "ECONNREFUSED") in the cause chain.
    const causes: string[] = [];
    for (let c = (error as { cause?: unknown }).cause; hasMessage(c) && causes.length < 3; c = (c as { cause?: unknown }).cause) {
      causes.push(c.message);
    }
    return new SummarizerCallError(this.scrub(causes.length ? `${error.message} (${causes.join(': ')})` : error.message));
  }

  private scrub(text: string): string {
    // Too short to be a real key: replacing it would mangle the message, not protect anything.
    return this.apiKey.length >= 8 ? text.split(this.apiKey).join('***') : text;
  }
}
