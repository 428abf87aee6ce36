import { hasLoneSurrogate } from '@app/common';
import { MAX_SUMMARY_CHARS, normalizeSummary, summarizeWithRetry } from './retry';
import { SummaryResult } from './summarizer.port';

const result = (text: string, inputTokens = 10, outputTokens = 5): SummaryResult => ({
  text,
  inputTokens,
  outputTokens,
});

/** A fake model call answering from a script, one entry per call. */
function scripted(...steps: Array<string | Error | 'hang'>) {
  const signals: AbortSignal[] = [];
  const call = jest.fn(async (signal: AbortSignal) => {
    signals.push(signal);
    const step = steps[Math.min(signals.length - 1, steps.length - 1)];
    if (step === 'hang') return new Promise<SummaryResult>(() => undefined);
    if (step instanceof Error) throw step;
    return result(step);
  });
  return { call, signals };
}

describe('summarizeWithRetry', () => {
  it('skips after exactly `attempts` empty answers', async () => {
    const { call } = scripted('', '   \n\t ');
    const outcome = await summarizeWithRetry(call, { attempts: 2, timeoutMs: 1000 });
    expect(call).toHaveBeenCalledTimes(2);
    expect(outcome).toMatchObject({ ok: false, reason: 'empty', attempts: 2, inputTokens: 20, outputTokens: 10 });
  });

  it('succeeds on the second attempt after an empty answer, counting both calls and their tokens', async () => {
    const { call } = scripted('', '  The party found the relic.\n\nMira agreed to help.  ');
    const outcome = await summarizeWithRetry(call, { attempts: 2, timeoutMs: 1000 });
    expect(outcome).toMatchObject({
      ok: true,
      text: 'The party found the relic. Mira agreed to help.',
      attempts: 2,
      inputTokens: 20,
      outputTokens: 10,
    });
  });

  it('makes one call when the first answer is good', async () => {
    const { call } = scripted('Done.');
    const outcome = await summarizeWithRetry(call, { attempts: 3, timeoutMs: 1000 });
    expect(call).toHaveBeenCalledTimes(1);
    expect(outcome).toMatchObject({ ok: true, text: 'Done.', attempts: 1 });
  });

  it('treats a call slower than timeoutMs as failed, aborting its signal and not waiting for it', async () => {
    const { call, signals } = scripted('hang');
    const started = Date.now();
    const outcome = await summarizeWithRetry(call, { attempts: 2, timeoutMs: 50 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(outcome).toMatchObject({
      ok: false,
      reason: 'timeout after 50 ms',
      attempts: 2,
      inputTokens: 0,
      outputTokens: 0,
    });
    expect(signals.map((s) => s.aborted)).toEqual([true, true]);
  });

  it('recovers from a timeout on the next attempt', async () => {
    const { call } = scripted('hang', 'Recovered.');
    const outcome = await summarizeWithRetry(call, { attempts: 2, timeoutMs: 50 });
    expect(outcome).toMatchObject({ ok: true, text: 'Recovered.', attempts: 2 });
  });

  it('reports the last error concisely and without credentials', async () => {
    const { call } = scripted(
      new Error('first'),
      new Error('529 overloaded_error: Overloaded (key sk-ant-api03-SECRETSECRET, Authorization: Bearer abc.def)'),
    );
    const outcome = await summarizeWithRetry(call, { attempts: 2, timeoutMs: 1000 });
    expect(outcome.ok).toBe(false);
    expect(outcome.attempts).toBe(2);
    const reason = (outcome as { reason: string }).reason;
    expect(reason).toMatch(/^error: 529 overloaded_error: Overloaded/);
    expect(reason).not.toContain('SECRETSECRET');
    expect(reason).not.toContain('abc.def');
  });

  it('counts a synchronous throw as a failed attempt', async () => {
    const call = jest.fn((): Promise<SummaryResult> => {
      throw new Error('boom');
    });
    const outcome = await summarizeWithRetry(call, { attempts: 2, timeoutMs: 1000 });
    expect(outcome).toMatchObject({ ok: false, reason: 'error: boom', attempts: 2 });
  });

  it('stops at once, without further attempts, when the external signal aborts mid-call', async () => {
    const { call, signals } = scripted('hang');
    const shutdown = new AbortController();
    setTimeout(() => shutdown.abort(), 20);
    const outcome = await summarizeWithRetry(call, { attempts: 3, timeoutMs: 10_000, signal: shutdown.signal });
    expect(outcome).toMatchObject({ ok: false, reason: 'aborted', attempts: 1, inputTokens: 0, outputTokens: 0 });
    expect(call).toHaveBeenCalledTimes(1);
    expect(signals[0].aborted).toBe(true);
  });

  it('makes no call when the external signal is already aborted', async () => {
    const { call } = scripted('Fine.');
    const outcome = await summarizeWithRetry(call, { attempts: 2, timeoutMs: 1000, signal: AbortSignal.abort() });
    expect(call).not.toHaveBeenCalled();
    expect(outcome).toMatchObject({ ok: false, reason: 'aborted', attempts: 0 });
  });
});

describe('normalizeSummary', () => {
  it('cuts a long run of emoji between graphemes, never leaving half a pair (§13)', () => {
    for (const pad of ['', 'x', 'xy']) {
      const text = normalizeSummary(`${pad}${'🐉'.repeat(2_000)}`);
      expect(text.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
      expect(hasLoneSurrogate(text)).toBe(false);
      expect(text.endsWith('🐉…')).toBe(true);
    }
  });

  it('makes one paragraph of single spaces', () => {
    expect(normalizeSummary('  One.\n\n  Two\tthree.\r\n')).toBe('One. Two three.');
  });

  it('caps long text at a word boundary with an ellipsis', () => {
    const text = normalizeSummary('word '.repeat(1000));
    expect(text.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
    expect(text.endsWith('word…')).toBe(true);
  });

  it('cuts a single huge word rather than returning nothing', () => {
    const text = normalizeSummary('x'.repeat(5000));
    expect(text).toHaveLength(MAX_SUMMARY_CHARS);
    expect(text.endsWith('…')).toBe(true);
  });

  it('leaves text at the cap untouched', () => {
    const text = 'a'.repeat(MAX_SUMMARY_CHARS);
    expect(normalizeSummary(text)).toBe(text);
  });

  it('lists every attempt for the usage ledger: outcome, tokens and latency, failed ones included', async () => {
    const { call } = scripted('', new Error('boom'), 'hang', 'Fine.');
    const outcome = await summarizeWithRetry(call, { attempts: 4, timeoutMs: 50 });
    expect(outcome.ok).toBe(true);
    expect(outcome.calls.map((c) => [c.attempt, c.outcome, c.inputTokens, c.outputTokens])).toEqual([
      [1, 'empty', 10, 5],
      [2, 'error', 0, 0],
      [3, 'timeout', 0, 0],
      [4, 'ok', 10, 5],
    ]);
    expect(outcome.calls[2].latencyMs).toBeGreaterThanOrEqual(45);
  });

  it('records the call a shutdown interrupted as aborted', async () => {
    const { call } = scripted('hang');
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 20);
    const outcome = await summarizeWithRetry(call, { attempts: 3, timeoutMs: 5_000, signal: stop.signal });
    expect(outcome.calls.map((c) => c.outcome)).toEqual(['aborted']);
  });
});
