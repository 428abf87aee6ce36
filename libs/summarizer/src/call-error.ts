import { SummaryResult } from './summarizer.port';

/** A failed model call whose message is safe to log and record (no credentials). */
export class SummarizerCallError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'SummarizerCallError';
  }
}

// Duck-typed: errors from Node internals (undici) fail `instanceof Error` inside test sandboxes.
const hasMessage = (value: unknown): value is { message: string } =>
  typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string';

/** Replaces every occurrence of the adapter's own key (too short to be a real key: left alone). */
export function scrubKey(text: string, apiKey: string | undefined): string {
  return apiKey && apiKey.length >= 8 ? text.split(apiKey).join('***') : text;
}

/**
 * An SDK error as one concise line with the key scrubbed; an abort passes through unchanged so the retry
 * policy still sees a shutdown. `statusLine` words an HTTP error of the adapter's SDK (null: not one).
 */
export function toCallError(
  error: unknown,
  apiKey: string | undefined,
  statusLine: (error: unknown) => { text: string; status: number } | null,
): Error {
  if (!hasMessage(error)) return new SummarizerCallError(scrubKey(String(error), apiKey));
  const name = (error as { name?: unknown }).name;
  if (name === 'AbortError' || name === 'APIUserAbortError') return error as Error;
  const http = statusLine(error);
  if (http) return new SummarizerCallError(scrubKey(http.text, apiKey), http.status);
  // Connection errors hide the useful part ("other side closed", "ECONNREFUSED") in the cause chain.
  const causes: string[] = [];
  for (
    let c = (error as { cause?: unknown }).cause;
    hasMessage(c) && causes.length < 3;
    c = (c as { cause?: unknown }).cause
  ) {
    causes.push(c.message);
  }
  return new SummarizerCallError(
    scrubKey(causes.length ? `${error.message} (${causes.join(': ')})` : error.message, apiKey),
  );
}

const PARTIAL = Symbol('partialUsage');

/** Marks an error with the usage its attempt had already spent (chunks summarized before it failed). */
export function withPartialUsage<E>(error: E, usage: Partial<SummaryResult>): E {
  if (typeof error === 'object' && error !== null) (error as Record<symbol, unknown>)[PARTIAL] = usage;
  return error;
}

/** What a failed attempt had spent, when the error says so. */
export function partialUsageOf(error: unknown): Partial<SummaryResult> | undefined {
  return typeof error === 'object' && error !== null
    ? ((error as Record<symbol, unknown>)[PARTIAL] as Partial<SummaryResult> | undefined)
    : undefined;
}
