import { Summarizer, SummaryResult } from '@app/summarizer';
import { Metrics } from './metrics';

/** Counts calls, failures and tokens per scope around any Summarizer. */
export class MeteredSummarizer implements Summarizer {
  readonly name: string;
  readonly model?: string;
  constructor(
    private readonly inner: Summarizer,
    private readonly metrics: Metrics,
  ) {
    this.name = inner.name;
    this.model = inner.model;
  }

  private async measure(scope: string, call: () => Promise<SummaryResult>): Promise<SummaryResult> {
    this.metrics.summarizerCalls.inc({ scope });
    try {
      const result = await call();
      this.metrics.summarizerTokens.inc({ scope, direction: 'input' }, result.inputTokens);
      this.metrics.summarizerTokens.inc({ scope, direction: 'output' }, result.outputTokens);
      return result;
    } catch (err) {
      this.metrics.summarizerFailures.inc({ scope });
      throw err;
    }
  }

  summarizeLocation(...a: Parameters<Summarizer['summarizeLocation']>) {
    return this.measure('location', () => this.inner.summarizeLocation(...a));
  }
  summarizeNpc(...a: Parameters<Summarizer['summarizeNpc']>) {
    return this.measure('npc', () => this.inner.summarizeNpc(...a));
  }
  summarizeWorld(...a: Parameters<Summarizer['summarizeWorld']>) {
    return this.measure('world', () => this.inner.summarizeWorld(...a));
  }
  summarizeRolling(...a: Parameters<Summarizer['summarizeRolling']>) {
    return this.measure('summary', () => this.inner.summarizeRolling(...a));
  }
  defineTerm(...a: Parameters<Summarizer['defineTerm']>) {
    return this.measure('glossary', () => this.inner.defineTerm(...a));
  }
}
