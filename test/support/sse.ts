import { LorekeeperClient, StreamEvent } from '@app/client';

/** An open stream that collects events as they come (through the typed client's async iterator). */
export interface OpenStream {
  events: StreamEvent[];
  /** Resolves once `predicate` holds for the events so far; rejects after `ms`. */
  until(predicate: (events: StreamEvent[]) => boolean, ms?: number): Promise<StreamEvent[]>;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  close(): void;
}

export function openStream(
  baseUrl: string,
  campaignId: string,
  o: { after?: string; apiKey?: string } = {},
): OpenStream {
  const client = new LorekeeperClient({ baseUrl, apiKey: o.apiKey });
  const abort = new AbortController();
  const events: StreamEvent[] = [];
  const waiters = new Set<() => void>();
  let done = false;
  const ended = (async () => {
    try {
      for await (const e of client.stream(campaignId, { after: o.after, signal: abort.signal })) {
        events.push(e);
        for (const w of [...waiters]) w();
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    } finally {
      done = true;
      for (const w of [...waiters]) w();
    }
  })();
  ended.catch(() => undefined);
  return {
    events,
    ended,
    close: () => abort.abort(),
    until: (predicate, ms = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (predicate(events)) {
            cleanup();
            resolve(events);
          } else if (done) {
            cleanup();
            reject(
              new Error(
                `stream ended before the expected events; got ${events.map((e) => e.id ?? e.event).join(', ')}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out; got ${events.map((e) => e.id ?? e.event).join(', ')}`));
        }, ms);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
  };
}

/** The ids of stored events (notices have none). */
export const idsOf = (events: StreamEvent[]) => events.filter((e) => e.id !== undefined).map((e) => e.id!);

/** Whether the events hold game version `game` and memory version `memory`. */
export const reached = (game: number, memory: number) => (events: StreamEvent[]) =>
  events.some((e) => e.data?.stream === 'game' && e.data.version >= game) &&
  (memory === 0 || events.some((e) => e.data?.stream === 'memory' && e.data.version >= memory));
