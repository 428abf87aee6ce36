// §13 "Text is cut by grapheme": every cut of stored or served text goes through here, so no cut leaves a lone
// surrogate (which PostgreSQL cannot store and strict clients reject) or separates a letter from its accents.

const SEGMENTER = new Intl.Segmenter('en', { granularity: 'grapheme' });
const ELLIPSIS = '…';

/** True when `code` (a UTF-16 unit) is printable ASCII other than a line break: a grapheme always starts there. */
const startsGrapheme = (code: number) => code >= 0x20 && code < 0x7f;

/**
 * The longest prefix of `text` of at most `max` UTF-16 units that ends between two graphemes. Linear in `max`. A first
 * grapheme longer than `max` (a letter under thousands of combining marks) is cut at a code point instead, never
 * inside a surrogate pair, so the prefix is bounded whatever the text.
 */
export function graphemePrefix(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  // Fast path: before a printable ASCII unit that follows anything below the combining marks, a grapheme ends.
  if (startsGrapheme(text.charCodeAt(max)) && text.charCodeAt(max - 1) < 0x300) return text.slice(0, max);
  let end = 0;
  for (const { index, segment } of SEGMENTER.segment(text)) {
    if (index + segment.length > max) break;
    end = index + segment.length;
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
