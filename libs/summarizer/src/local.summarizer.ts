import {
  capSentences,
  capWords,
  countWords,
  cutOutsideMarks,
  mentionsAny,
  pickKeySentences,
  renderSentences,
  sentenceKey,
  sentencesOf,
  splitSentences,
} from './key-sentences';
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
import { clauseAround, MAX_DEFINITION_WORDS } from './term-clause';

const NOTHING = 'nothing of note happened.';

/** §8: an offline memory stays under 60 words, its header included. */
export const MAX_MEMORY_WORDS = 59;

/** The sentences that fit what is left of MAX_MEMORY_WORDS after the header. */
const fitting = (header: string, sentences: Parameters<typeof pickKeySentences>[0]) =>
  renderSentences(pickKeySentences(sentences, 3, MAX_MEMORY_WORDS - countWords(header)));

/** Rough token estimate used wherever no provider counts tokens: ceil(chars / 4). */
export const estimateTokens = (chars: number): number => Math.ceil(chars / 4);

const transcriptChars = (messages: TranscriptLine[]) =>
  messages.reduce((sum, m) => sum + (m.content?.length ?? 0) + (m.speaker?.length ?? 0), 0);

function result(text: string, inputChars: number): SummaryResult {
  return { text, inputTokens: estimateTokens(inputChars), outputTokens: estimateTokens(text.length) };
}

function checkSignal(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

const sentenceOf = (text: string) => (/[.!?…]["'”’)]*$/u.test(text.trim()) ? text.trim() : `${text.trim()}.`);

/** Offline, deterministic summarizer: keeps the 2–3 sentences carrying the most names, numbers and outcomes. */
export class LocalSummarizer implements Summarizer {
  readonly name = 'local';

  async summarizeLocation(input: LocationSummaryInput, signal?: AbortSignal): Promise<SummaryResult> {
    checkSignal(signal);
    const header = `At ${input.location.name}: `;
    return result(
      header + (fitting(header, sentencesOf(input.messages, header)) || NOTHING),
      transcriptChars(input.messages),
    );
  }

  async summarizeNpc(input: NpcSummaryInput, signal?: AbortSignal): Promise<SummaryResult> {
    checkSignal(signal);
    const header = input.location
      ? `${input.npc.name}'s memory of ${input.location.name}: `
      : `${input.npc.name}'s memory: `;
    const names = [input.npc.name, ...input.npc.aliases];
    const all = sentencesOf(input.messages, header);
    // What the NPC said or what names it; the whole window only when nothing does.
    const focused = all.filter(
      (s) => mentionsAny(s.text, names) || (s.speaker !== null && mentionsAny(s.speaker, names)),
    );
    return result(
      header + (fitting(header, focused.length ? focused : all) || NOTHING),
      transcriptChars(input.messages),
    );
  }

  async summarizeWorld(input: WorldSummaryInput, signal?: AbortSignal): Promise<SummaryResult> {
    checkSignal(signal);
    const header = input.event.trim() ? `${sentenceOf(input.event)} ` : '';
    const event = sentenceKey(header);
    const body = fitting(
      header,
      sentencesOf(input.messages, header).filter((x) => sentenceKey(x.text) !== event),
    );
    return result((header + body).trim(), transcriptChars(input.messages) + input.event.length);
  }

  async summarizeRolling(input: RollingSummaryInput, signal?: AbortSignal): Promise<SummaryResult> {
    checkSignal(signal);
    const max = Math.max(1, Math.floor(input.maxWords));
    const sentences = sentencesOf(input.messages);
    const within = pickKeySentences(sentences, 3, max);
    // No sentence fits whole: the best ones are cut below (outside any quotation) rather than saying nothing.
    const fresh = splitSentences(renderSentences(within.length ? within : pickKeySentences(sentences)));
    const seen = new Set(fresh.map(sentenceKey));
    // A sentence the new events repeat is kept once, where they put it.
    const previous = splitSentences(input.previousSummary ?? '').filter((x) => !seen.has(sentenceKey(x)));
    // The newest events matter most: the oldest sentences of the previous summary go first.
    while (previous.length && countWords([...previous, ...fresh].join(' ')) > max) previous.shift();
    const text = capSentences([...previous, ...fresh].join(' ').trim(), max);
    return result(text, transcriptChars(input.messages) + (input.previousSummary?.length ?? 0));
  }

  async defineTerm(input: DefineTermInput, signal?: AbortSignal): Promise<SummaryResult> {
    checkSignal(signal);
    const first = sentencesOf(input.messages).find((s) => mentionsAny(s.text, [input.term]));
    // Terms like "C++" or "Mt. Doom" may not sit between word boundaries: fall back to a plain substring.
    const loose =
      first ?? sentencesOf(input.messages).find((s) => s.text.toLowerCase().includes(input.term.toLowerCase()));
    // §8: the shortest clause around the first use, so a definition does not copy the whole coining sentence.
    const clause = loose ? clauseAround(loose.text, input.term) : null;
    const text =
      clause ??
      (loose ? (cutOutsideMarks(loose.text, MAX_DEFINITION_WORDS) ?? capWords(loose.text, MAX_DEFINITION_WORDS)) : '');
    return result(text, transcriptChars(input.messages) + input.term.length);
  }
}
