import { ComposedContext } from './context.composer';
import { layoutEntries } from './text-layout';

/** JSON form: exactly §2's shape for legacy requests, §8's budget-transparent shape otherwise. */
export function renderJson(c: ComposedContext): Record<string, unknown> {
  if (c.request.legacy) {
    return {
      version: c.version,
      processedVersion: c.processedVersion,
      sections: c.sections.map((s) => ({
        title: s.title,
        // §2's entries are exactly {ref, subjectId, createdAt, text}.
        entries: s.entries.map(({ tokens: _t, body: _b, usedAt: _u, revision: _r, origin: _o, ...e }) => e),
      })),
    };
  }
  return {
    version: c.version,
    timeline: c.timeline,
    processedVersion: c.processedVersion,
    agent: c.request.agent,
    ...(c.request.viewer ? { viewer: c.request.viewer } : {}),
    sections: c.sections.map((s) => ({
      key: s.key,
      title: s.title,
      tokens: s.tokens,
      entries: s.entries.map(({ body: _b, usedAt: _u, ...e }) => e),
    })),
    // `used` includes the text trailer's tokens (§8), `trailer` says how many they are.
    tokens: { budget: c.budget, used: c.used, trailer: c.trailer?.tokens ?? 0 },
    dropped: c.dropped,
    overBudget: c.overBudget,
    ...c.extra,
  };
}

/** Text form: `## <title>` blocks in canonical order, empty sections left out, then the explain line. */
export function renderText(c: ComposedContext, explain = true): string {
  const blocks = c.sections
    .filter((s) => s.entries.length > 0)
    .map((s) => {
      const body = layoutEntries(s.entries, s.timeline).map((l) => ('entry' in l ? l.entry.text : l.header));
      return (s.inline ? body : [`## ${s.title}`, ...body]).join('\n');
    });
  let text = blocks.join('\n\n');
  if (c.trailer && explain) text = text ? `${text}\n\n${c.trailer.line}` : c.trailer.line;
  return text.length ? `${text}\n` : '';
}
