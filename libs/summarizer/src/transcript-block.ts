import { TranscriptLine } from './summarizer.port';

export const TRANSCRIPT_OPEN = '<transcript>';
export const TRANSCRIPT_CLOSE = '</transcript>';

/** JSON that can sit inside a tag-delimited block: `<` is escaped so no value can close the block. */
export function quoteData(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** One message as one JSON line: the model reads it as quoted data, never as instructions. */
export function renderTranscriptLine(line: TranscriptLine): string {
  const speaker = line.speaker ? { speaker: line.speaker } : {};
  return quoteData({ i: line.index, role: line.role, ...speaker, text: line.content });
}

/** The whole transcript as a delimited block, one JSON line per message. */
export function renderTranscriptBlock(lines: TranscriptLine[]): string {
  return [TRANSCRIPT_OPEN, ...lines.map(renderTranscriptLine), TRANSCRIPT_CLOSE].join('\n');
}

/** Characters a message takes in the prompt, newline included: the unit of the chunking budget. */
export const renderedSize = (line: TranscriptLine): number => renderTranscriptLine(line).length + 1;
