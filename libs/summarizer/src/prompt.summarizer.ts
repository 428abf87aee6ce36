import {
  DefineTermInput,
  LocationSummaryInput,
  NpcSummaryInput,
  RollingSummaryInput,
  Summarizer,
  SummaryResult,
  WorldSummaryInput,
} from './summarizer.port';
import {
  defineTermPrompt,
  locationPrompt,
  npcPrompt,
  rollingPrompt,
  SummaryPrompt,
  worldPrompt,
} from './summary-prompts';

export const DEFAULT_MAX_OUTPUT_TOKENS = 400;

/** A model adapter: each kind of call is one prompt (summary-prompts.ts) sent by `send`; adapters differ only there. */
export abstract class PromptSummarizer implements Summarizer {
  abstract readonly name: string;
  abstract readonly model: string;

  constructor(protected readonly maxOutputTokens: number = DEFAULT_MAX_OUTPUT_TOKENS) {}

  /** One request, no retry (the retry policy owns them). */
  protected abstract send(prompt: SummaryPrompt, maxTokens: number, signal?: AbortSignal): Promise<SummaryResult>;

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
    return this.send(
      rollingPrompt(input),
      Math.max(this.maxOutputTokens, Math.ceil(input.maxWords * 1.5) + 50),
      signal,
    );
  }

  defineTerm(input: DefineTermInput, signal?: AbortSignal): Promise<SummaryResult> {
    return this.send(defineTermPrompt(input), this.maxOutputTokens, signal);
  }
}
