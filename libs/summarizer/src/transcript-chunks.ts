import { TranscriptLine } from './summarizer.port';
import { renderedSize } from './transcript-block';

/** Total prompt characters of a transcript (its JSON lines). */
export const transcriptSize = (messages: TranscriptLine[]): number =>
  messages.reduce((sum, m) => sum + renderedSize(m), 0);

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Splits one message into consecutive parts (same index, role, speaker) each within maxChars; joined, they are the
 * original text.
 */
export function splitMessage(message: TranscriptLine, maxChars: number): TranscriptLine[] {
  const fits = (content: string) => renderedSize({ ...message, content }) <= maxChars;
  if (!fits('')) throw new Error(`maxInputChars ${maxChars} is too small for message ${message.index}`);
  const text = message.content;
  const parts: TranscriptLine[] = [];
  let pos = 0;
  while (pos < text.length) {
    // Largest prefix that fits: rendered size grows with the prefix, so binary search works.
    let lo = 1;
    let hi = text.length - pos;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fits(text.slice(pos, pos + mid))) lo = mid;
      else hi = mid - 1;
    }
    let take = lo;
    if (pos + take < text.length) {
      // Prefer ending a part after whitespace, unless that would waste more than half the part.
      const space = text.slice(pos, pos + take).search(/\s\S*$/);
      if (space >= take / 2) take = space + 1;
      else if (take > 1 && isHighSurrogate(text.charCodeAt(pos + take - 1))) take -= 1; // never split an emoji in two
    }
    parts.push({ ...message, content: text.slice(pos, pos + take) });
    pos += take;
  }
  return parts;
}

/** Consecutive chunks whose transcript each fits in maxChars; an oversized message becomes several parts. */
export function splitIntoChunks(messages: TranscriptLine[], maxChars: number): TranscriptLine[][] {
  const chunks: TranscriptLine[][] = [];
  let current: TranscriptLine[] = [];
  let size = 0;
  for (const message of messages) {
    const pieces = renderedSize(message) <= maxChars ? [message] : splitMessage(message, maxChars);
    for (const piece of pieces) {
      const pieceSize = renderedSize(piece);
      if (current.length && size + pieceSize > maxChars) {
        chunks.push(current);
        current = [];
        size = 0;
      }
      current.push(piece);
      size += pieceSize;
    }
  }
  if (current.length) chunks.push(current);
  return chunks;
}
