import { CampaignState, emptyState, StoredMessage } from '@app/campaign';
import type { StoredEvent } from '@app/event-store';
import type { LocationSummaryInput, NpcSummaryInput, RollingSummaryInput } from '@app/summarizer';
import type { Summarizer, SummaryResult } from '@app/summarizer';
import { DEFAULT_TRIGGER_OPTIONS, revision, TriggerRun, Withheld } from '.';

/** The revision trigger driven through plan/run with in-memory reads: what it asks the model, what it records. */

const at = (i: number) => `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`;

function message(index: number, content: string): StoredMessage {
  return {
    index,
    role: 'dm',
    speaker: null,
    content,
    locationId: 'tavern',
    npcIds: [],
    at: at(index),
    round: 1,
    visibility: 'public',
    audience: [],
    toolCalls: [],
    toolCallId: null,
    reasoning: null,
    version: index + 2,
  };
}

function stored(version: number, type: string, data: Record<string, unknown>): StoredEvent {
  return { position: version, streamId: 'campaign-c', version, type, data, metadata: {}, recordedAt: at(version) };
}

/** What the tests read of a summarizer input. */
type Input = LocationSummaryInput | NpcSummaryInput | RollingSummaryInput;

/** A summarizer that records what it was asked and answers with the message indexes it read. */
class Recorder implements Pick<Summarizer, 'summarizeLocation' | 'summarizeNpc' | 'summarizeRolling'> {
  readonly calls: { kind: string; input: Input }[] = [];
  failing = false;
  private answer(kind: string, input: Input): Promise<SummaryResult> {
    this.calls.push({ kind, input });
    if (this.failing) return Promise.reject(new Error('scripted failure'));
    const indexes = input.messages.map((m) => m.index).join(',');
    return Promise.resolve({ text: `${kind} of ${indexes}.`, inputTokens: 7, outputTokens: 3 });
  }
  summarizeLocation = (input: Input) => this.answer('location', input);
  summarizeNpc = (input: Input) => this.answer('npc', input);
  summarizeRolling = (input: Input) => this.answer('rolling', input);
}

interface World {
  withheld: Withheld;
  messages: StoredMessage[];
  retracted: Set<number>;
  state: CampaignState;
}

const NOTHING: Withheld = { memories: [], summaries: [], terms: [] };

function world(o: Partial<World> = {}): World {
  const state: CampaignState = {
    ...emptyState('c'),
    locations: { tavern: { id: 'tavern', name: 'The Gilded Tankard', dangerLevel: null, completedEncounters: [] } },
    npcs: { bob: { id: 'bob', name: 'Bob the Barkeep', aliases: [], locationId: 'tavern' } },
  };
  return {
    withheld: NOTHING,
    messages: [0, 1, 2, 3, 4, 5].map((i) => message(i, `line ${i}`)),
    retracted: new Set(),
    state,
    ...o,
  };
}

const leftTavern = stored(9, 'LocationChanged', {
  fromLocationId: 'tavern',
  toLocationId: 'docks',
  npcsPresent: ['bob'],
});

async function runRevision(w: World, recorder: Recorder, at = stored(20, 'MessagesRetracted', { indexes: [2] })) {
  const run: TriggerRun = {
    campaignId: 'c',
    event: at,
    state: w.state,
    cursors: new Map(),
    options: DEFAULT_TRIGGER_OPTIONS,
    requestTerms: { coined: 0 },
    reads: {
      messages: () => Promise.reject(new Error('a revision selects no scope')),
      witnessed: () => Promise.reject(new Error('a revision selects no scope')),
      latestSummary: () => Promise.reject(new Error('the base comes with the withheld read')),
      knownTerms: () => Promise.reject(new Error('a revision coins nothing')),
      withheld: () => Promise.resolve(w.withheld),
      messagesByIndex: (indexes) =>
        Promise.resolve(w.messages.filter((m) => indexes.includes(m.index) && !w.retracted.has(m.index))),
      event: (version) => Promise.resolve(version === leftTavern.version ? leftTavern : null),
      stateAt: () => Promise.resolve(w.state),
    },
    attempt: async (_about, call) => {
      try {
        const r = await call(recorder as unknown as Summarizer, new AbortController().signal);
        return {
          ok: true,
          text: r.text,
          attempts: 1,
          inputTokens: r.inputTokens,
          outputTokens: r.outputTokens,
          calls: [],
        };
      } catch (err) {
        return { ok: false, reason: (err as Error).message, attempts: 1, inputTokens: 0, outputTokens: 0, calls: [] };
      }
    },
    skipped: () => {
      throw new Error('a revision words its own MemorySkipped');
    },
    log: () => undefined,
  };
  const tasks = revision.plan(at as never, DEFAULT_TRIGGER_OPTIONS);
  expect(tasks).toHaveLength(1);
  return revision.run(tasks[0], run);
}

const tavernMemory = (inputIndexes: number[], scope: 'location' | 'npc' = 'location') => ({
  id: `c:9:${scope}:${scope === 'location' ? 'tavern' : 'bob'}`,
  scope,
  subjectId: scope === 'location' ? 'tavern' : 'bob',
  triggerVersion: 9,
  inputIndexes,
  revision: 1,
});

describe('revision trigger', () => {
  it('nothing withheld: no call, no outcome', async () => {
    const recorder = new Recorder();
    expect(await runRevision(world(), recorder)).toEqual([]);
    expect(recorder.calls).toEqual([]);
  });

  it('a memory with surviving input: one call of its own prompt over exactly the survivors → MemoryRevised', async () => {
    const recorder = new Recorder();
    const w = world({ withheld: { ...NOTHING, memories: [tavernMemory([1, 2, 3])] }, retracted: new Set([2]) });
    const out = await runRevision(w, recorder);
    expect(recorder.calls).toHaveLength(1);
    expect(recorder.calls[0].kind).toBe('location');
    expect((recorder.calls[0].input as LocationSummaryInput).location).toEqual({
      id: 'tavern',
      name: 'The Gilded Tankard',
    });
    expect(recorder.calls[0].input.messages.map((m) => m.index)).toEqual([1, 3]);
    expect(out).toEqual([
      {
        type: 'MemoryRevised',
        data: {
          memoryId: 'c:9:location:tavern',
          summary: 'location of 1,3.',
          inputIndexes: [1, 3],
          revision: 2,
          triggerVersion: 20,
          createdAt: at(3),
          attempts: 1,
          inputTokens: 7,
          outputTokens: 3,
        },
      },
    ]);
  });

  it("an NPC memory is revised with the NPC scope's prompt, not the location's", async () => {
    const recorder = new Recorder();
    const w = world({ withheld: { ...NOTHING, memories: [tavernMemory([0, 2], 'npc')] }, retracted: new Set([2]) });
    const [out] = await runRevision(w, recorder);
    expect(recorder.calls.map((c) => c.kind)).toEqual(['npc']);
    expect(recorder.calls[0].input.messages.map((m) => m.index)).toEqual([0]);
    expect(out).toMatchObject({ type: 'MemoryRevised', data: { memoryId: 'c:9:npc:bob', inputIndexes: [0] } });
  });

  it('a memory with no surviving input is withdrawn without a call', async () => {
    const recorder = new Recorder();
    const w = world({ withheld: { ...NOTHING, memories: [tavernMemory([2, 3])] }, retracted: new Set([2, 3]) });
    expect(await runRevision(w, recorder)).toEqual([
      { type: 'MemoryWithdrawn', data: { memoryId: 'c:9:location:tavern', reason: 'retracted', triggerVersion: 20 } },
    ]);
    expect(recorder.calls).toEqual([]);
  });

  it('a failed revision records MemorySkipped naming what it revises (it stays withheld)', async () => {
    const recorder = new Recorder();
    recorder.failing = true;
    const w = world({ withheld: { ...NOTHING, memories: [tavernMemory([1, 2, 3])] }, retracted: new Set([2]) });
    const out = await runRevision(w, recorder);
    expect(out).toEqual([
      {
        type: 'MemorySkipped',
        data: {
          scope: 'location',
          subjectId: 'tavern',
          reason: 'scripted failure',
          attempts: 1,
          triggerVersion: 20,
          sinceMessageIndex: 1,
          throughMessageIndex: 3,
          revisionOf: 'c:9:location:tavern',
        },
      },
    ]);
  });

  it('a "Previously" is rewritten from its base and the surviving messages it covered; the cursor stays', async () => {
    const recorder = new Recorder();
    const summary = {
      key: '*',
      viewer: null,
      publicView: false,
      base: 'Before.',
      inputIndexes: [3, 4, 5],
      throughMessageIndex: 5,
    };
    const w = world({ withheld: { ...NOTHING, summaries: [summary] }, retracted: new Set([4]) });
    const out = await runRevision(w, recorder);
    expect(recorder.calls).toHaveLength(1);
    expect(recorder.calls[0].input).toMatchObject({ previousSummary: 'Before.', viewer: null });
    expect(recorder.calls[0].input.messages.map((m) => m.index)).toEqual([3, 5]);
    expect(out).toEqual([
      {
        type: 'RollingSummaryUpdated',
        data: expect.objectContaining({
          summary: 'rolling of 3,5.',
          viewer: null,
          revision: true,
          sinceMessageIndex: 3,
          throughMessageIndex: 5,
          inputIndexes: [3, 5],
          triggerVersion: 20,
        }),
      },
    ]);
  });

  it('a public "Previously" with nothing surviving takes its base again without a call', async () => {
    const recorder = new Recorder();
    const summary = {
      key: 'public',
      viewer: null,
      publicView: true,
      base: 'Before.',
      inputIndexes: [4],
      throughMessageIndex: 4,
    };
    const w = world({ withheld: { ...NOTHING, summaries: [summary] }, retracted: new Set([4]) });
    const out = await runRevision(w, recorder);
    expect(recorder.calls).toEqual([]);
    expect(out).toEqual([
      {
        type: 'RollingSummaryUpdated',
        data: expect.objectContaining({ summary: 'Before.', publicView: true, revision: true, inputIndexes: [] }),
      },
    ]);
  });

  it('a term is withdrawn unless the game master defined it', async () => {
    const recorder = new Recorder();
    const terms = [
      { term: 'Moonwell', termKey: 'moonwell', coinedMessageIndex: 2 },
      { term: 'Starfall', termKey: 'starfall', coinedMessageIndex: 2 },
    ];
    const w = world({ withheld: { ...NOTHING, terms }, retracted: new Set([2]) });
    w.state = { ...w.state, glossary: { starfall: { term: 'Starfall', definition: 'A comet.', hidden: false } } };
    expect(await runRevision(w, recorder)).toEqual([
      { type: 'GlossaryTermWithdrawn', data: { term: 'Moonwell', coinedMessageIndex: 2, triggerVersion: 20 } },
    ]);
    expect(recorder.calls).toEqual([]);
  });

  it('fires on the regular triggers too, so a failed revision is tried again later', async () => {
    const recorder = new Recorder();
    const w = world({ withheld: { ...NOTHING, memories: [tavernMemory([1, 2])] }, retracted: new Set([2]) });
    const out = await runRevision(w, recorder, stored(30, 'RoundEnded', { round: 3 }));
    expect(out).toMatchObject([{ type: 'MemoryRevised', data: { triggerVersion: 30, inputIndexes: [1] } }]);
  });
});
