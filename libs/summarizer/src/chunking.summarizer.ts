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
import { renderedSize } from './transcript-block';
import { cutText } from '@app/common';

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

/**
 * The least room a chunk summary gets when a window has so many chunks that an equal share of the merge would be less:
 * each merge round then still shrinks the window by maxInputChars / MIN_CHUNK_SHARE.
 */
export const MIN_CHUNK_SHARE = 400;

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
    // §13: each chunk summary is capped to its share of the merge, so a window that cannot be summarized shorter (runs
    // of one letter, echoed back) still fits in the merge rounds instead of skipping its scope forever.
    const share = Math.max(MIN_CHUNK_SHARE, Math.floor(this.maxInputChars / chunks.length));
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
        summaries.push(
          capToSize({ index: last.index, role: 'summary', speaker: null, content: text, at: last.at }, share),
        );
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

/** `line` with its content cut by grapheme so that its prompt line takes at most `size` characters. */
export function capToSize(line: TranscriptLine, size: number): TranscriptLine {
  let capped = line;
  let room = line.content.length;
  // Escapes make a prompt line longer than its content: shrink by the excess (and a tenth) until it fits.
  while (renderedSize(capped) > size && room > 1) {
    room = Math.max(1, Math.min(room - (renderedSize(capped) - size), Math.floor(room * 0.9)));
    capped = { ...line, content: cutText(line.content, room) };
  }
  return capped;
}
