/** A section's printed lines in a text context (between its `## <title>` and the next blank line); null if absent. */
export function section(text: string, title: string): string[] | null {
  const start = text.indexOf(`## ${title}\n`);
  if (start === -1) return null;
  const body = text.slice(start + title.length + 4);
  const end = body.indexOf('\n\n');
  return body.slice(0, end === -1 ? undefined : end).split('\n');
}
