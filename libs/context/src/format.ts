/** `2026-05-01T10:15:42.000Z` → `2026-05-01 10:15` (to the minute). */
export function toMinute(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return m ? `${m[1]} ${m[2]}` : iso;
}

/** Collapses any whitespace (newlines included) into single spaces. */
export const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The §2 entry line: `- <createdAt, to the minute> — <summary on one line>`. */
export const memoryLine = (createdAt: string, summary: string) => `- ${toMinute(createdAt)} — ${oneLine(summary)}`;
