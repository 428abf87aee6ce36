import { ConfigError } from '@app/common';
import { AnthropicSummarizer } from './anthropic.summarizer';
import { ChunkingSummarizer } from './chunking.summarizer';
import { LocalSummarizer } from './local.summarizer';
import { OpenAiSummarizer } from './openai.summarizer';
import { Summarizer } from './summarizer.port';

export * from './summarizer.port';
export { AnthropicSummarizer, DEFAULT_ANTHROPIC_MODEL } from './anthropic.summarizer';
export { SummarizerCallError } from './call-error';
export type { AnthropicSummarizerOptions } from './anthropic.summarizer';
export { LocalSummarizer, estimateTokens } from './local.summarizer';
export { OpenAiSummarizer } from './openai.summarizer';
export type { OpenAiSummarizerOptions } from './openai.summarizer';
export { ChunkingSummarizer, DEFAULT_MAX_INPUT_CHARS } from './chunking.summarizer';
export type { ChunkingOptions } from './chunking.summarizer';
export { summarizeWithRetry, normalizeSummary, redactSecrets, MAX_SUMMARY_CHARS } from './retry';
export type { SummaryOutcome, RetryOptions, ModelCall, CallOutcome } from './retry';

export interface SummarizerConfig {
  summarizer: 'anthropic' | 'openai' | 'local';
  anthropicApiKey?: string;
  anthropicBaseUrl?: string;
  anthropicModel: string;
  openaiBaseUrl?: string;
  openaiModel?: string;
  openaiApiKey?: string;
  maxInputChars?: number;
}

function adapterOf(config: SummarizerConfig): Summarizer {
  if (config.summarizer === 'anthropic') {
    if (!config.anthropicApiKey) throw new ConfigError('SUMMARIZER=anthropic needs ANTHROPIC_API_KEY');
    const { anthropicApiKey: apiKey, anthropicBaseUrl: baseURL, anthropicModel: model } = config;
    return new AnthropicSummarizer({ apiKey, baseURL, model });
  }
  if (config.summarizer === 'openai') {
    if (!config.openaiBaseUrl) throw new ConfigError('SUMMARIZER=openai needs OPENAI_BASE_URL');
    if (!config.openaiModel) throw new ConfigError('SUMMARIZER=openai needs OPENAI_MODEL');
    const { openaiBaseUrl: baseURL, openaiModel: model, openaiApiKey: apiKey } = config;
    return new OpenAiSummarizer({ baseURL, model, apiKey });
  }
  return new LocalSummarizer();
}

/** The configured adapter (Anthropic, OpenAI-compatible or local), wrapped so oversized windows are chunked. */
export function createSummarizer(config: SummarizerConfig): Summarizer {
  return new ChunkingSummarizer(adapterOf(config), { maxInputChars: config.maxInputChars });
}
export { balancedMarks, capSentences, capWords, cutOutsideMarks, sentenceKey, splitSentences } from './key-sentences';
export * from './usage/ledger-entry';
export * from './usage/usage-report';
export * from './usage/usage-ledger';
