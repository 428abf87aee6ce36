import {
  DefineTermInput,
  LocationSummaryInput,
  NpcSummaryInput,
  RollingSummaryInput,
  Summarizer,
  SummaryResult,
  TranscriptLine,
  WorldSummaryInput,
} from './summarizer.port';
import { partialUsageOf, withPartialUsage } from './call-error';
import { splitIntoChunks, transcriptSize } from './transcript-chunks';

type Spent = Required<
  Pick<SummaryResult, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'requests'>
>;

/** This level's spending plus what a failed deeper merge had already spent. */
function sum(spent: Spent, deeper?: Partial<SummaryResult>): Spent {
  return {
    inputTokens: spent.inputTokens + (deeper?.inputTokens ?? 0),
    outputTokens: spent.outputTokens + (deeper?.outputTokens ?? 0),
    cacheReadTokens: spent.cacheReadTokens + (deeper?.cacheReadTokens ?? 0),
    cacheWriteTokens: spent.cacheWriteTokens + (deeper?.cacheWriteTokens ?? 0),
    requests: spent.requests + (deeper?.requests ?? 0),
  };
}

/** Roughly what a summary model takes comfortably (~12k tokens of transcript). */
export const DEFAULT_MAX_INPUT_CHARS = 48_000;
// Merges of merges only happen with absurd inputs; past this depth something is wrong, so fail loudly.
const MAX_MERGE_DEPTH = 4;

type Method = 'summarizeLocation' | 'summarizeNpc' | 'summarizeWorld' | 'summarizeRolling' | 'defineTerm';
type InputWithMessages = { messages: TranscriptLine[]; previousSummary?: string | null };

export interface ChunkingOptions {
  /** Transcript size (prompt characters of its JSON lines) above which the window is chunked. */
  maxInputChars?: number;
}

/**
 * Decorator: a window too large for one call is summarized in chunks and the chunk summaries merged, never truncated.
 */
export class ChunkingSummarizer implements Summarizer {
  readonly name: string;
  readonly model?: string;
  readonly maxInputChars: number;

  constructor(
    private readonly inner: Summarizer,
    options: ChunkingOptions = {},
  ) {
    this.name = inner.name;
    this.model = inner.model;
    this.maxInputChars = options.maxInputChars ?? DEFAULT_MAX_INPUT_CHARS;
  }

  summarizeLocation(input: LocationSummaryInput, signal?: AbortSignal): Promise<SummaryResult> {
    return this.run('summarizeLocation', input, signal, 0);
  }

  summarizeNpc(input: NpcSummaryInput, signal?: AbortSignal): Promise<SummaryResult> {
    return this.run('summarizeNpc', input, signal, 0);
  }

  summarizeWorld(input: WorldSummaryInput, signal?: AbortSignal): Promise<SummaryResult> {
    return this.run('summarizeWorld', input, signal, 0);
  }

  summarizeRolling(input: RollingSummaryInput, signal?: AbortSignal): Promise<SummaryResult> {
    return this.run('summarizeRolling', input, signal, 0);
  }

  defineTerm(input: DefineTermInput, signal?: AbortSignal): Promise<SummaryResult> {
    return this.run('defineTerm', input, signal, 0);
  }

  private call<I extends InputWithMessages>(method: Method, input: I, signal?: AbortSignal): Promise<SummaryResult> {
    const fn = this.inner[method] as unknown as (input: I, signal?: AbortSignal) => Promise<SummaryResult>;
    return fn.call(this.inner, input, signal);
  }

  private async run<I extends InputWithMessages>(
    method: Method,
    input: I,
    signal: AbortSignal | undefined,
    depth: number,
  ): Promise<SummaryResult> {
    if (transcriptSize(input.messages) <= this.maxInputChars) return this.call(method, input, signal);
    if (depth >= MAX_MERGE_DEPTH)
      throw new Error(`transcript still over ${this.maxInputChars} chars after ${depth} merge rounds`);
    const chunks = splitIntoChunks(input.messages, this.maxInputChars);
    const summaries: TranscriptLine[] = [];
    const spent: Spent = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, requests: 0 };
    const add = (part: SummaryResult) => {
      spent.inputTokens += part.inputTokens;
      spent.outputTokens += part.outputTokens;
      spent.cacheReadTokens += part.cacheReadTokens ?? 0;
      spent.cacheWriteTokens += part.cacheWriteTokens ?? 0;
      spent.requests += part.requests ?? 1;
    };
    try {
      for (const [n, chunk] of chunks.entries()) {
        signal?.throwIfAborted();
        // The previous rolling summary belongs to the merge, not to every chunk.
        const fresh = 'previousSummary' in input ? { previousSummary: null } : {};
        const part = await this.call(method, { ...input, messages: chunk, ...fresh }, signal);
        add(part);
        const text = part.text.trim();
        // An empty chunk summary would silently lose that chunk: fail the attempt instead.
        if (!text) throw new Error(`empty summary for chunk ${n + 1}/${chunks.length}`);
        const last = chunk[chunk.length - 1];
        summaries.push({ index: last.index, role: 'summary', speaker: null, content: text, at: last.at });
      }
      signal?.throwIfAborted();
      const merged = await this.run(method, { ...input, messages: summaries }, signal, depth + 1);
      add(merged);
      const model = merged.model ?? this.model;
      return { ...spent, text: merged.text, ...(model ? { model } : {}) };
    } catch (error) {
      // The chunks already summarized were paid for: the usage ledger counts them with the failed attempt.
      const model = this.model ? { model: this.model } : {};
      throw withPartialUsage(error, { ...sum(spent, partialUsageOf(error)), ...model });
    }
  }
}
