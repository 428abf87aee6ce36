// §13 "Text is cut by grapheme": every cut of stored or served text goes through here, so no cut leaves a lone
// surrogate (which PostgreSQL cannot store and strict clients reject) or separates a letter from its accents.

const SEGMENTER = new Intl.Segmenter('en', { granularity: 'grapheme' });
const ELLIPSIS = '…';

/** True when `code` (a UTF-16 unit) is printable ASCII other than a line break: a grapheme always starts there. */
const startsGrapheme = (code: number) => code >= 0x20 && code < 0x7f;
/** How far back from a cut a known boundary is looked for before segmenting from the start. */
const RESYNC_UNITS = 1_024;

/** True when a grapheme surely starts at `i`: printable ASCII after anything below the combining marks. */
const boundaryAt = (text: string, i: number) =>
  i === 0 || (startsGrapheme(text.charCodeAt(i)) && text.charCodeAt(i - 1) < 0x300);

/**
 * The longest prefix of `text` of at most `max` UTF-16 units that ends between two graphemes. Linear in `max`. A first
 * grapheme longer than `max` (a letter under thousands of combining marks) is cut at a code point instead, never
 * inside a surrogate pair, so the prefix is bounded whatever the text.
 */
export function graphemePrefix(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  // Fast path: before a printable ASCII unit that follows anything below the combining marks, a grapheme ends.
  if (boundaryAt(text, max)) return text.slice(0, max);
  // Segmenting is slow (µs a grapheme): start from the nearest sure boundary before the cut, else from the start.
  let from = max - 1;
  while (from > 0 && from > max - RESYNC_UNITS && !boundaryAt(text, from)) from--;
  if (!boundaryAt(text, from)) from = 0;
  let end = from;
  // Up to the whole code point at the cut: whether a grapheme ends there depends on it.
  for (const { index, segment } of SEGMENTER.segment(text.slice(from, max + 2))) {
    if (from + index + segment.length > max) break;
    end = from + index + segment.length;
  }
  if (end > 0) return text.slice(0, end);
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** `text` itself when it has at most `max` UTF-16 units, else a grapheme-safe prefix ending in "…", `max` in all. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${graphemePrefix(text, max - ELLIPSIS.length)}${ELLIPSIS}`;
}

/** True when `text` holds a UTF-16 surrogate without its pair (what a cut by units leaves behind). */
export function hasLoneSurrogate(text: string): boolean {
  return /\p{Surrogate}/u.test(text);
}
