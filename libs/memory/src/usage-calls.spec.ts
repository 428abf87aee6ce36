import { StoredEvent } from '@app/event-store';
import { ModelCall } from '@app/summarizer';
import { abandonedEntries, CallGroup, committedEntries } from './usage-calls';

const call = (attempt: number, outcome: ModelCall['outcome'], inputTokens = 100): ModelCall => ({
  attempt,
  outcome,
  inputTokens,
  outputTokens: 10,
  cacheReadTokens: 40,
  cacheWriteTokens: 0,
  latencyMs: 5,
  startedAt: '2026-01-01T00:00:00.000Z',
  requests: 1,
});
const stored = (version: number, type: string, data: Record<string, unknown>): StoredEvent =>
  ({ streamId: 'memory-c', version, position: version, type, data, metadata: {}, recordedAt: 't' }) as StoredEvent;
const trigger = stored(9, 'LocationChanged', {});
const group = (scope: string, subjectId: string, calls: ModelCall[]): CallGroup => ({
  scope,
  subjectId,
  calls,
  written: new Map(),
});

describe('ledger rows of a trigger', () => {
  it('pairs each outcome with the calls of its scope and subject, in order, and links the memory', () => {
    const groups = [
      group('location', 'tavern', [call(1, 'error', 0), call(2, 'ok')]),
      group('npc', 'mira', [call(1, 'empty'), call(2, 'empty')]),
      group('world', 'w', [call(1, 'ok')]),
      group('world', 'w', [call(1, 'ok')]),
    ];
    const appended = [
      stored(4, 'MemoryRecorded', { scope: 'location', subjectId: 'tavern', memoryId: 'c:9:location:tavern' }),
      stored(5, 'MemorySkipped', { scope: 'npc', subjectId: 'mira' }),
      stored(6, 'MemoryRecorded', { scope: 'world', subjectId: 'w', memoryId: 'first' }),
      stored(7, 'MemoryRecorded', { scope: 'world', subjectId: 'w', memoryId: 'second' }),
    ];
    const rows = committedEntries('c', trigger, appended, groups, 'm');
    expect(rows.map((r) => [r.scope, r.attempt, r.outcome, r.memoryVersion, r.memoryId])).toEqual([
      ['location', 1, 'error', 4, 'c:9:location:tavern'],
      ['location', 2, 'ok', 4, 'c:9:location:tavern'],
      ['npc', 1, 'empty', 5, null],
      ['npc', 2, 'empty', 5, null],
      ['world', 1, 'ok', 6, 'first'],
      ['world', 1, 'ok', 7, 'second'],
    ]);
    // Input counts uncached tokens only: the cache read is apart.
    expect(rows[1]).toMatchObject({ inputTokens: 60, cacheReadTokens: 40, triggerVersion: 9, model: 'm' });
  });

  it('matches glossary terms and "Previously" by their own keys', () => {
    const groups = [group('glossary', 'Pale Court', [call(1, 'ok')]), group('summary', '*', [call(1, 'ok')])];
    const appended = [
      stored(2, 'GlossaryTermAdded', { term: 'Pale Court' }),
      stored(3, 'RollingSummaryUpdated', { viewer: null }),
    ];
    expect(committedEntries('c', trigger, appended, groups, 'm').map((r) => [r.scope, r.memoryVersion])).toEqual([
      ['glossary', 2],
      ['summary', 3],
    ]);
  });

  it('§10: revisions are their own scope, linked to the memory they revise; withdrawals made no call', () => {
    const groups = [
      group('revision', 'c:9:location:tavern', [call(1, 'ok')]),
      group('revision', 'c:9:npc:mira', [call(1, 'error', 0)]),
      group('revision', 'summary:*public', [call(1, 'ok')]),
    ];
    const appended = [
      stored(4, 'MemoryRevised', { memoryId: 'c:9:location:tavern', revision: 2 }),
      stored(5, 'MemorySkipped', { scope: 'npc', subjectId: 'mira', revisionOf: 'c:9:npc:mira' }),
      stored(6, 'MemoryWithdrawn', { memoryId: 'c:9:world:world', reason: 'retracted' }),
      stored(7, 'RollingSummaryUpdated', { viewer: null, publicView: true, revision: true }),
    ];
    const rows = committedEntries('c', trigger, appended, groups, 'm');
    expect(rows.map((r) => [r.scope, r.subjectId, r.outcome, r.memoryVersion, r.memoryId])).toEqual([
      ['revision', 'c:9:location:tavern', 'ok', 4, 'c:9:location:tavern'],
      ['revision', 'c:9:npc:mira', 'error', 5, null],
      ['revision', 'summary:*public', 'ok', 7, null],
    ]);
  });

  it('abandons every call of an outcome that never commits, except those written ahead (marked in place)', () => {
    const g = group('location', 'tavern', [call(1, 'ok'), call(2, 'aborted', 0)]);
    g.written.set(g.calls[0], 17);
    expect(abandonedEntries('c', trigger, [g], 'm').map((r) => [r.attempt, r.outcome])).toEqual([[2, 'abandoned']]);
    expect(abandonedEntries('c', trigger, [g], 'm', false).map((r) => r.outcome)).toEqual(['abandoned', 'abandoned']);
  });
});
