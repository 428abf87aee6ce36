import { cutText, graphemePrefix } from '@app/common';
import { partialUsageOf } from './call-error';
import { SummaryResult } from './summarizer.port';

/** Longest summary kept; memories are one-liners in the context, so longer answers are cut. */
export const MAX_SUMMARY_CHARS = 1200;

/** How one attempt ended: its answer was used, was empty, failed, ran out of time, or was given up at shutdown. */
export type CallOutcome = 'ok' | 'empty' | 'error' | 'timeout' | 'aborted';

/** One attempt as the usage ledger records it; tokens are 0 when the provider reported none (errors, timeouts). */
export interface ModelCall {
  attempt: number;
  outcome: CallOutcome;
  /** Every prompt token, cached ones included (as SummaryResult). */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  latencyMs: number;
  /** Wall-clock start of the attempt (ISO). */
  startedAt: string;
  /** HTTP requests of this attempt (a chunked window makes several). */
  requests: number;
  model?: string;
}

export type SummaryOutcome =
  | { ok: true; text: string; attempts: number; inputTokens: number; outputTokens: number; calls: ModelCall[] }
  | { ok: false; reason: string; attempts: number; inputTokens: number; outputTokens: number; calls: ModelCall[] };

export interface RetryOptions {
  /** Calls at most (SUMMARY_ATTEMPTS). */
  attempts: number;
  /** Per call (SUMMARY_TIMEOUT_MS); the call's signal is aborted when it passes. */
  timeoutMs: number;
  /** Shutdown: abandons the call in flight and gives up without further attempts. */
  signal?: AbortSignal;
  /** Told of each finished attempt before the next one starts (the usage ledger's write-ahead); must not throw. */
  onCall?: (call: ModelCall) => Promise<void> | void;
}

/** One paragraph: trimmed, whitespace collapsed, at most MAX_SUMMARY_CHARS cut at a word boundary with "…". */
export function normalizeSummary(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= MAX_SUMMARY_CHARS) return flat;
  // §13: by grapheme, so a summary never ends in half an emoji.
  const head = graphemePrefix(flat, MAX_SUMMARY_CHARS - 1);
  const space = head.lastIndexOf(' ');
  // A word longer than half the cap is cut inside the word rather than dropping most of the text.
  const cut = space >= MAX_SUMMARY_CHARS / 2 ? head.slice(0, space) : head;
  return `${cut.replace(/[\s,;:–—-]+$/, '')}…`;
}

const REASON_MAX_CHARS = 300;

/** Hides anything shaped like a credential, whatever the provider echoed back. */
export function redactSecrets(text: string): string {
  return text
    .replace(/sk-ant-[A-Za-z0-9_-]+/g, 'sk-ant-***')
    .replace(/(bearer\s+)[^\s"',;]+/gi, '$1***')
    .replace(/(x-api-key["']?\s*[:=]\s*["']?)[^\s"',;]+/gi, '$1***');
}

function describeError(error: unknown): string {
  // Duck-typed: errors from another realm (Node internals in a test sandbox) fail `instanceof Error`.
  const message =
    typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string'
      ? (error as { message: string }).message
      : String(error);
  const line = redactSecrets(message.replace(/\s+/g, ' ').trim()) || 'unknown error';
  return `error: ${cutText(line, REASON_MAX_CHARS)}`;
}

type AttemptResult =
  | { kind: 'result'; result: SummaryResult }
  | { kind: 'error'; error: unknown }
  | { kind: 'timeout' }
  | { kind: 'aborted' };

/** Runs one call, racing it against the timeout and the external signal; never rejects. */
async function attempt(
  call: (signal: AbortSignal) => Promise<SummaryResult>,
  timeoutMs: number,
  external?: AbortSignal,
): Promise<AttemptResult> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<AttemptResult>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timeout' }), timeoutMs);
    onAbort = () => resolve({ kind: 'aborted' });
    external?.addEventListener('abort', onAbort, { once: true });
  });
  const running = Promise.resolve()
    .then(() => call(controller.signal))
    .then(
      (result): AttemptResult => ({ kind: 'result', result }),
      (error): AttemptResult => ({ kind: 'error', error }),
    );
  try {
    const outcome = await Promise.race([running, stop]);
    // Abort what we stop waiting for, so the HTTP request and its socket are released.
    if (outcome.kind === 'timeout' || outcome.kind === 'aborted') controller.abort();
    return outcome;
  } finally {
    clearTimeout(timer);
    if (onAbort) external?.removeEventListener('abort', onAbort);
  }
}

/** The ledger entry of one attempt, from what it returned (or, for a failed chunked attempt, what its parts used). */
function callOf(
  attempt: number,
  outcome: CallOutcome,
  started: { at: string; ms: number },
  result?: Partial<SummaryResult>,
): ModelCall {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  return {
    attempt,
    outcome,
    inputTokens: n(result?.inputTokens),
    outputTokens: n(result?.outputTokens),
    cacheReadTokens: n(result?.cacheReadTokens),
    cacheWriteTokens: n(result?.cacheWriteTokens),
    latencyMs: Math.max(0, Math.round(performance.now() - started.ms)),
    startedAt: started.at,
    requests: result?.requests ?? 1,
    ...(result?.model ? { model: result.model } : {}),
  };
}

/** The retry policy (DESIGN §2): up to `attempts` calls; empty text, an error or a timeout is a failed attempt. */
export async function summarizeWithRetry(
  call: (signal: AbortSignal) => Promise<SummaryResult>,
  opts: RetryOptions,
): Promise<SummaryOutcome> {
  const maxAttempts = Math.max(1, Math.floor(opts.attempts));
  let inputTokens = 0;
  let outputTokens = 0;
  let reason = 'no attempt made';
  let made = 0;
  const calls: ModelCall[] = [];
  const push = async (c: ModelCall) => {
    calls.push(c);
    if (c.outcome !== 'aborted') await opts.onCall?.(c);
  };
  const end = (fields: { ok: true; text: string } | { ok: false; reason: string }): SummaryOutcome => ({
    ...fields,
    attempts: made,
    inputTokens,
    outputTokens,
    calls,
  });
  while (made < maxAttempts) {
    if (opts.signal?.aborted) return end({ ok: false, reason: 'aborted' });
    made += 1;
    const started = { at: new Date().toISOString(), ms: performance.now() };
    const outcome = await attempt(call, opts.timeoutMs, opts.signal);
    if (outcome.kind === 'aborted') {
      await push(callOf(made, 'aborted', started));
      return end({ ok: false, reason: 'aborted' });
    }
    if (outcome.kind === 'timeout') {
      await push(callOf(made, 'timeout', started));
      reason = `timeout after ${opts.timeoutMs} ms`;
      continue;
    }
    if (outcome.kind === 'error') {
      // A shutdown that raced the call's own rejection is still a shutdown.
      const aborted = opts.signal?.aborted;
      await push(callOf(made, aborted ? 'aborted' : 'error', started, partialUsageOf(outcome.error)));
      if (aborted) return end({ ok: false, reason: 'aborted' });
      reason = describeError(outcome.error);
      continue;
    }
    inputTokens += outcome.result.inputTokens || 0;
    outputTokens += outcome.result.outputTokens || 0;
    const text = normalizeSummary(typeof outcome.result.text === 'string' ? outcome.result.text : '');
    await push(callOf(made, text ? 'ok' : 'empty', started, outcome.result));
    if (text) return end({ ok: true, text });
    reason = 'empty';
  }
  return end({ ok: false, reason });
}
