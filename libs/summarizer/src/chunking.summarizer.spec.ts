import { partialUsageOf } from './call-error';
import { hasLoneSurrogate } from '@app/common';
import { ChunkingSummarizer, DEFAULT_MAX_INPUT_CHARS } from './chunking.summarizer';
import { LocalSummarizer } from './local.summarizer';
import {
  LocationSummaryInput,
  RollingSummaryInput,
  Summarizer,
  SummaryResult,
  TranscriptLine,
} from './summarizer.port';
import { renderedSize } from './transcript-block';
import { splitIntoChunks, splitMessage, transcriptSize } from './transcript-chunks';

type Call = { method: string; input: { messages: TranscriptLine[]; previousSummary?: string | null } };

/** A fake model that records every call and answers "S<n>" with fixed token counts. */
class RecordingSummarizer implements Summarizer {
  readonly name = 'recording';
  calls: Call[] = [];
  constructor(private readonly answer: (n: number) => string = (n) => `S${n}.`) {}
  private record(method: string, input: Call['input']): Promise<SummaryResult> {
    this.calls.push({ method, input });
    return Promise.resolve({ text: this.answer(this.calls.length), inputTokens: 100, outputTokens: 10 });
  }
  summarizeLocation = (input: Call['input']) => this.record('summarizeLocation', input);
  summarizeNpc = (input: Call['input']) => this.record('summarizeNpc', input);
  summarizeWorld = (input: Call['input']) => this.record('summarizeWorld', input);
  summarizeRolling = (input: Call['input']) => this.record('summarizeRolling', input);
  defineTerm = (input: Call['input']) => this.record('defineTerm', input);
}

const msg = (index: number, content: string): TranscriptLine => ({
  index,
  role: 'player',
  speaker: 'Ana',
  content,
  at: `t${index}`,
});
const words = (seed: number, n: number) => Array.from({ length: n }, (_, i) => `w${seed}x${i}`).join(' ');
const location = { id: 'loc-1', name: 'Crypt' };

describe('ChunkingSummarizer', () => {
  it('hands the usage of the chunks already paid for to the retry policy when a later chunk fails', async () => {
    const inner = new RecordingSummarizer((n) => (n === 3 ? '' : `S${n}.`));
    const chunking = new ChunkingSummarizer(inner, { maxInputChars: 400 });
    const messages = Array.from({ length: 12 }, (_, i) => msg(i, words(i, 20)));
    const error = await chunking.summarizeLocation({ campaignId: 'c', location, messages }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/empty summary for chunk 3/);
    expect(partialUsageOf(error)).toMatchObject({ inputTokens: 300, outputTokens: 30, requests: 3 });
  });

  it('passes a small window straight through in exactly one call', async () => {
    const inner = new RecordingSummarizer();
    const chunking = new ChunkingSummarizer(inner, { maxInputChars: 10_000 });
    const input: LocationSummaryInput = { campaignId: 'c', location, messages: [msg(0, 'hi'), msg(1, 'there')] };
    const r = await chunking.summarizeLocation(input);
    expect(inner.calls).toHaveLength(1);
    expect(inner.calls[0].input).toBe(input);
    expect(r).toEqual({ text: 'S1.', inputTokens: 100, outputTokens: 10 });
  });

  it('summarizes a large window in N chunks plus one merge, reaching every message, cutting nothing', async () => {
    const inner = new RecordingSummarizer();
    const max = 2_000;
    const chunking = new ChunkingSummarizer(inner, { maxInputChars: max });
    const messages = Array.from({ length: 60 }, (_, i) => msg(i, words(i, 20)));
    messages.push(msg(60, words(60, 1_000))); // one message far over the limit on its own
    const r = await chunking.summarizeLocation({ campaignId: 'c', location, messages });

    const chunkCalls = inner.calls.slice(0, -1);
    const merge = inner.calls[inner.calls.length - 1];
    expect(chunkCalls.length).toBeGreaterThan(3);
    expect(inner.calls.every((c) => c.method === 'summarizeLocation')).toBe(true);
    for (const c of chunkCalls) expect(transcriptSize(c.input.messages)).toBeLessThanOrEqual(max);

    // Every message's full text reached some call, in order, the long one split into parts.
    const seen = new Map<number, string>();
    for (const c of chunkCalls)
      for (const m of c.input.messages) seen.set(m.index, (seen.get(m.index) ?? '') + m.content);
    for (const m of messages) expect(seen.get(m.index)).toBe(m.content);

    expect(merge.input.messages.map((m) => m.role)).toEqual(chunkCalls.map(() => 'summary'));
    expect(merge.input.messages.map((m) => m.content)).toEqual(chunkCalls.map((_, i) => `S${i + 1}.`));
    expect(merge.input.messages.map((m) => m.index)).toEqual(
      chunkCalls.map((c) => c.input.messages[c.input.messages.length - 1].index),
    );
    expect(r).toEqual({
      text: `S${inner.calls.length}.`,
      inputTokens: 100 * inner.calls.length,
      outputTokens: 10 * inner.calls.length,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      requests: inner.calls.length,
    });
  });

  it('gives the previous rolling summary to the merge only', async () => {
    const inner = new RecordingSummarizer();
    const chunking = new ChunkingSummarizer(inner, { maxInputChars: 1_000 });
    const input: RollingSummaryInput = {
      campaignId: 'c',
      previousSummary: 'Before.',
      maxWords: 100,
      messages: Array.from({ length: 20 }, (_, i) => msg(i, words(i, 15))),
    };
    await chunking.summarizeRolling(input);
    const merge = inner.calls[inner.calls.length - 1];
    expect(inner.calls.slice(0, -1).every((c) => c.input.previousSummary === null)).toBe(true);
    expect(merge.input.previousSummary).toBe('Before.');
  });

  it('fails the attempt rather than merging around an empty chunk summary', async () => {
    const inner = new RecordingSummarizer((n) => (n === 2 ? ' ' : `S${n}.`));
    const chunking = new ChunkingSummarizer(inner, { maxInputChars: 1_000 });
    const messages = Array.from({ length: 20 }, (_, i) => msg(i, words(i, 15)));
    await expect(
      chunking.summarizeNpc({ campaignId: 'c', npc: { id: 'n', name: 'N', aliases: [] }, location: null, messages }),
    ).rejects.toThrow(/empty summary for chunk 2\//);
  });

  it('stops between chunks when the signal aborts', async () => {
    const controller = new AbortController();
    const inner = new RecordingSummarizer((n) => {
      controller.abort();
      return `S${n}.`;
    });
    const chunking = new ChunkingSummarizer(inner, { maxInputChars: 1_000 });
    const messages = Array.from({ length: 20 }, (_, i) => msg(i, words(i, 15)));
    await expect(
      chunking.summarizeLocation({ campaignId: 'c', location, messages }, controller.signal),
    ).rejects.toThrow();
    expect(inner.calls).toHaveLength(1);
  });

  it('keeps the local summarizer readable when it merges its own chunk summaries', async () => {
    const chunking = new ChunkingSummarizer(new LocalSummarizer(), { maxInputChars: 700 });
    const messages = Array.from({ length: 12 }, (_, i) => msg(i, `Ana found ${i + 1} keys in the Vault of Orin.`));
    const { text } = await chunking.summarizeLocation({ campaignId: 'c', location, messages });
    expect(text.startsWith('At Crypt: ')).toBe(true);
    expect(text.match(/At Crypt/g)).toHaveLength(1);
  });

  it('converges on a window its model cannot shorten: each chunk summary is capped to its share of the merge', async () => {
    // An echoing model: what a run of one letter gets from a summarizer that keeps its "sentence" whole.
    const echo = new RecordingSummarizer();
    echo.summarizeLocation = (input: Call['input']) =>
      Promise.resolve({ text: input.messages.map((m) => m.content).join(' '), inputTokens: 1, outputTokens: 1 });
    const chunking = new ChunkingSummarizer(echo);
    const messages = [...'abcdef'].map((letter, i) => msg(i, `${letter}${'🐉'.repeat(8_000)}`.slice(0, 16_000)));
    const { text } = await chunking.summarizeLocation({ campaignId: 'c', location, messages });
    expect(text.length).toBeLessThanOrEqual(DEFAULT_MAX_INPUT_CHARS);
    expect(hasLoneSurrogate(text)).toBe(false);
    const local = new ChunkingSummarizer(new LocalSummarizer());
    const runs = [...'abcdef'].map((letter, i) => msg(i, letter.repeat(16_000)));
    expect((await local.summarizeLocation({ campaignId: 'c', location, messages: runs })).text).toMatch(/^At Crypt: /u);
  });
});

describe('splitMessage / splitIntoChunks', () => {
  it('splits at whitespace, keeps each part within the limit and loses no character', () => {
    const long = msg(7, `${words(1, 500)} <script>"quoted"</script> ${'é'.repeat(300)} 😀😀😀 end`);
    const parts = splitMessage(long, 400);
    expect(parts.length).toBeGreaterThan(5);
    expect(parts.map((p) => p.content).join('')).toBe(long.content);
    for (const p of parts) {
      expect(renderedSize(p)).toBeLessThanOrEqual(400);
      expect(p).toMatchObject({ index: 7, role: 'player', speaker: 'Ana' });
      expect(p.content).not.toMatch(/[\ud800-\udbff]$/); // no emoji split in half
    }
  });

  it('keeps messages whole and consecutive when they fit', () => {
    const messages = Array.from({ length: 10 }, (_, i) => msg(i, words(i, 10)));
    const chunks = splitIntoChunks(messages, 500);
    expect(chunks.flat()).toEqual(messages);
    for (const c of chunks) expect(transcriptSize(c)).toBeLessThanOrEqual(500);
  });
});
