/**
 * Content negotiation for routes that speak JSON and text/plain (the context, DESIGN §14): text/plain only when
 * the Accept header ranks it above application/json. A missing header, a tie or a header naming neither answers
 * JSON, the documented default, so a client that sends `Accept: *\/*` or `application/json, text/plain` (axios)
 * keeps getting JSON.
 */
export function prefersText(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept
    .split(',')
    .slice(0, 50) // a header is at most a few ranges; a hostile one costs no more than this
    .map(parseRange)
    .filter((r): r is MediaRange => r !== undefined);
  return qualityOf(ranges, 'text', 'plain') > qualityOf(ranges, 'application', 'json');
}

type MediaRange = { type: string; subtype: string; q: number };

function parseRange(raw: string): MediaRange | undefined {
  const [media = '', ...params] = raw.split(';').map((s) => s.trim().toLowerCase());
  const [type, subtype] = media.split('/');
  if (!type || !subtype) return undefined;
  const qParam = params.find((p) => p.startsWith('q='));
  const q = qParam === undefined ? 1 : Number(qParam.slice(2));
  return { type, subtype, q: Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0 };
}

/**
 * RFC 9110 section 12.5.1: the most specific range that matches decides the quality (type/subtype, type/*, then
 * *\/*).
 */
function qualityOf(ranges: MediaRange[], type: string, subtype: string): number {
  const exact = ranges.find((r) => r.type === type && r.subtype === subtype);
  const anySub = ranges.find((r) => r.type === type && r.subtype === '*');
  const any = ranges.find((r) => r.type === '*' && r.subtype === '*');
  return (exact ?? anySub ?? any)?.q ?? 0;
}
