import { StoredEvent } from '@app/event-store';
import { LedgerEntry, ModelCall, Summarizer } from '@app/summarizer';
import { EntityManager } from 'typeorm';
import { UsageSink } from './usage-calls';
import { NO_USAGE, usageObserver } from './usage-observer';

const call = (attempt: number, outcome: ModelCall['outcome']): ModelCall => ({
  attempt,
  outcome,
  inputTokens: 100,
  outputTokens: 10,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  latencyMs: 5,
  startedAt: '2026-01-01T00:00:00.000Z',
  requests: 1,
});
const stored = (version: number, type: string, data: Record<string, unknown>): StoredEvent =>
  ({ streamId: 'memory-c', version, position: version, type, data, metadata: {}, recordedAt: 't' }) as StoredEvent;
const trigger = stored(9, 'LocationChanged', {});
const summarizer = { name: 'fake', model: 'm' } as Summarizer;
const m = {} as EntityManager;

/** A sink that keeps what it was told. */
function sink(failPending = false) {
  const told: { pending: LedgerEntry[]; settled: [number[], LedgerEntry[]][]; abandoned: [LedgerEntry[], number[]][] } =
    { pending: [], settled: [], abandoned: [] };
  const usage: UsageSink = {
    pending: async (e) => {
      if (failPending) throw new Error('disk full');
      told.pending.push(e);
      return 100 + told.pending.length;
    },
    settle: async (_m, ids, entries) => void told.settled.push([ids, entries]),
    abandon: async (entries, ids) => void told.abandoned.push([entries, ids]),
    sweep: async () => 0,
  };
  return { usage, told };
}

/** One summary of `calls` through the observer, as the drain's retry loop reports them. */
async function summarize(calls: ReturnType<typeof NO_USAGE.handling>, made: ModelCall[]) {
  const summary = calls.summary({ scope: 'location', subjectId: 'tavern' });
  for (const c of made) await summary.onCall?.(c);
  summary.spent(made);
}

describe('the usage ledger observing the drain', () => {
  it('writes paid calls ahead and settles them with their outcome, in its transaction', async () => {
    const { usage, told } = sink();
    const durable: LedgerEntry[][] = [];
    const logger = { warn: jest.fn() };
    const observer = usageObserver({ usage, writeAhead: true, onCalls: (e) => durable.push(e) }, summarizer, logger);
    const calls = observer.handling('c', trigger);
    await summarize(calls, [call(1, 'error'), call(2, 'ok')]);
    expect(told.pending.map((e) => [e.attempt, e.outcome])).toEqual([
      [1, 'pending'],
      [2, 'pending'],
    ]);
    await calls.committing(m, [stored(4, 'MemoryRecorded', { scope: 'location', subjectId: 'tavern', memoryId: 'x' })]);
    expect(durable).toEqual([]); // not before the commit
    calls.committed();
    expect(told.settled).toHaveLength(1);
    const [ids, entries] = told.settled[0];
    expect(ids).toEqual([101, 102]);
    expect(entries.map((e) => [e.attempt, e.outcome, e.memoryVersion, e.memoryId, e.model])).toEqual([
      [1, 'error', 4, 'x', 'm'],
      [2, 'ok', 4, 'x', 'm'],
    ]);
    expect(durable).toEqual([entries]);
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('records the calls of an outcome that never commits as abandoned, marking those written ahead', async () => {
    const { usage, told } = sink();
    const durable: LedgerEntry[][] = [];
    const observer = usageObserver({ usage, writeAhead: false, onCalls: (e) => durable.push(e) }, summarizer, {
      warn: jest.fn(),
    });
    const calls = observer.handling('c', trigger);
    await summarize(calls, [call(1, 'ok')]);
    await calls.abandoned();
    expect(told.pending).toEqual([]);
    expect(told.abandoned.map(([e, ids]) => [e.map((x) => x.outcome), ids])).toEqual([[['abandoned'], []]]);
    expect(durable.flat().map((e) => e.outcome)).toEqual(['abandoned']);

    const ahead = sink();
    const written = usageObserver({ usage: ahead.usage, writeAhead: true }, summarizer, { warn: jest.fn() });
    const later = written.handling('c', trigger);
    await summarize(later, [call(1, 'ok')]);
    await later.abandoned();
    // Marked in place: no second row.
    expect(ahead.told.abandoned).toEqual([[[], [101]]]);
  });

  it('a failed write-ahead only warns: the call still reaches the ledger with its outcome', async () => {
    const { usage, told } = sink(true);
    const logger = { warn: jest.fn() };
    const calls = usageObserver({ usage, writeAhead: true }, summarizer, logger).handling('c', trigger);
    await summarize(calls, [call(1, 'ok')]);
    expect(logger.warn).toHaveBeenCalledWith('model call not written ahead: disk full', {
      campaignId: 'c',
      triggerVersion: 9,
    });
    await calls.committing(m, [stored(4, 'MemorySkipped', { scope: 'location', subjectId: 'tavern' })]);
    expect(told.settled.map(([ids, e]) => [ids, e.length])).toEqual([[[], 1]]);
  });

  it('without a ledger, observes nothing', () => {
    expect(usageObserver({}, summarizer, { warn: jest.fn() })).toBe(NO_USAGE);
  });
});
