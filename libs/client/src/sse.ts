/** One Server-Sent Event as Lorekeeper's stream sends it (docs/stream.md). */
export interface StreamEvent {
  /** `<timeline>:<stream>:<version>`; absent on notices (cutoff, deleted, error). */
  id?: string;
  /** The event type (MessageRecorded, MemoryRecorded, …) or a notice name. */
  event: string;
  /** Parsed JSON: `{stream, version, type, data, triggerVersion?, recordedAt}` for stored events. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON whose shape depends on `event`
  data: any;
}

/**
 * Incremental text/event-stream parser (WHATWG rules for the fields Lorekeeper sends): feed it
 * decoded chunks, get the complete events; comments (heartbeats) are dropped.
 */
export class SseParser {
  private buffer = '';

  push(chunk: string): StreamEvent[] {
    this.buffer += chunk;
    const out: StreamEvent[] = [];
    let m: RegExpExecArray | null;
    while ((m = /\r?\n\r?\n/.exec(this.buffer)) !== null) {
      const block = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      const event = parseBlock(block);
      if (event) out.push(event);
    }
    return out;
  }
}

function parseBlock(block: string): StreamEvent | null {
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return null;
  const text = data.join('\n');
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON: hand over the text */
  }
  return { ...(id === undefined ? {} : { id }), event, data: parsed };
}
