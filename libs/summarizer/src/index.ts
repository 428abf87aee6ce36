import { ConfigError } from '@app/common';
import { AnthropicSummarizer } from './anthropic.summarizer';
import { ChunkingSummarizer } from './chunking.summarizer';
import { LocalSummarizer } from './local.summarizer';
import { Summarizer } from './summarizer.port';

export * from './summarizer.port';
export { AnthropicSummarizer, DEFAULT_ANTHROPIC_MODEL, SummarizerCallError } from './anthropic.summarizer';
export type { AnthropicSummarizerOptions } from './anthropic.summarizer';
export { LocalSummarizer, estimateTokens } from './local.summarizer';
export { ChunkingSummarizer, DEFAULT_MAX_INPUT_CHARS } from './chunking.summarizer';
export type { ChunkingOptions } from './chunking.summarizer';
export { summarizeWithRetry, normalizeSummary, redactSecrets, MAX_SUMMARY_CHARS } from './retry';
export type { SummaryOutcome, RetryOptions } from './retry';

export interface SummarizerConfig {
  summarizer: 'anthropic' | 'local';
  anthropicApiKey?: string;
  anthropicBaseUrl?: string;
  anthropicModel: string;
  maxInputChars?: number;
}

/** The configured adapter (Anthropic or the offline local one), wrapped so oversized windows are chunked. */
export function createSummarizer(config: SummarizerConfig): Summarizer {
  if (config.summarizer === 'anthropic' && !config.anthropicApiKey) {
    throw new ConfigError('SUMMARIZER=anthropic needs ANTHROPIC_API_KEY');
  }
  const inner =
    config.summarizer === 'anthropic'
      ? new AnthropicSummarizer({ apiKey: config.anthropicApiKey!, baseURL: config.anthropicBaseUrl, model: config.anthropicModel })
      : new LocalSummarizer();
  return new ChunkingSummarizer(inner, { maxInputChars: config.maxInputChars });
}
export { balancedMarks, capSentences, capWords, cutOutsideMarks, sentenceKey, splitSentences } from './key-sentences';
