import { CampaignCommand, CampaignProjector, CampaignReader, CampaignRunner, MessageInput } from '@app/campaign';
import { FixedClock } from '@app/common';
import { memoryStream, TypeOrmEventStore } from '@app/event-store';
import { Database } from '@app/database';
import { Summarizer, SummaryResult } from '@app/summarizer';
import { CAMPAIGN_ENTITIES, openSqliteFile, SqliteFile } from '../../../test/support/sqlite-file';
import { CursorRecord, MemoryHistoryRecord, MemoryRecord } from './memory.entity';
import { GlossaryTermRecord, MemoryWitnessRecord, RollingSummaryRecord } from './layers.entity';
import { MemoryProjector } from './memory.projector';
import { MemoryReader } from './memory.reader';
import { MemoryWorker, WorkerOptions } from './memory.worker';
import { CampaignDrain } from './drain';
import { WorkerProgress } from './progress';
import { MemoryCheckpointRecord } from './checkpoint/checkpoint.entity';
import { CheckpointProjection } from './checkpoint/checkpoint.projection';
import { CheckpointStore } from './checkpoint/checkpoint.store';

/** One summarizer call as the worker made it. */
interface Call {
  method: 'location' | 'npc' | 'world';
  campaignId: string;
  /** Location id, NPC id, or the world kind. */
  subject: string;
  indexes: number[];
  signal?: AbortSignal;
}

type Answer = string | Error | 'hang' | Promise<string>;

/** A summarizer that answers from a script and records every call. */
class ScriptedSummarizer implements Summarizer {
  readonly name = 'scripted';
  readonly calls: Call[] = [];
  script: (call: Call, n: number) => Answer = (c) => `${c.method} ${c.subject} saw ${c.indexes.join(',')}`;

  summarizeLocation(
    input: { campaignId: string; location: { id: string }; messages: { index: number }[] },
    signal?: AbortSignal,
  ) {
    return this.answer({
      method: 'location',
      campaignId: input.campaignId,
      subject: input.location.id,
      indexes: input.messages.map((m) => m.index),
      signal,
    });
  }
  summarizeNpc(
    input: { campaignId: string; npc: { id: string }; messages: { index: number }[] },
    signal?: AbortSignal,
  ) {
    return this.answer({
      method: 'npc',
      campaignId: input.campaignId,
      subject: input.npc.id,
      indexes: input.messages.map((m) => m.index),
      signal,
    });
  }
  summarizeWorld(input: { campaignId: string; kind: string; messages: { index: number }[] }, signal?: AbortSignal) {
    return this.answer({
      method: 'world',
      campaignId: input.campaignId,
      subject: input.kind,
      indexes: input.messages.map((m) => m.index),
      signal,
    });
  }
  summarizeRolling(): Promise<SummaryResult> {
    throw new Error('not used by the narrative memory worker');
  }
  defineTerm(): Promise<SummaryResult> {
    throw new Error('not used by the narrative memory worker');
  }

  private async answer(call: Call): Promise<SummaryResult> {
    this.calls.push(call);
    const answer = await this.script(call, this.calls.length - 1);
    if (answer === 'hang') return new Promise<SummaryResult>(() => undefined);
    if (answer instanceof Error) throw answer;
    return { text: answer, inputTokens: 10, outputTokens: 5 };
  }
}

const ENTITIES = [
  ...CAMPAIGN_ENTITIES,
  MemoryRecord,
  CursorRecord,
  MemoryWitnessRecord,
  GlossaryTermRecord,
  RollingSummaryRecord,
  MemoryCheckpointRecord,
  MemoryHistoryRecord,
];

/** The real pipeline pieces wired by hand on a temp SQLite file. */
class Harness {
  readonly clock = new FixedClock(new Date('2026-03-01T10:00:00.000Z'));
  readonly summarizer = new ScriptedSummarizer();
  readonly warnings: Array<{ message: string; context?: Record<string, unknown> }> = [];
  db: Database;
  store: TypeOrmEventStore;
  reader: CampaignReader;
  memories: MemoryReader;
  checkpoints: CheckpointStore;
  runner: CampaignRunner;
  private file: SqliteFile;
  private readonly workers: MemoryWorker[] = [];

  async open(): Promise<this> {
    this.file = await openSqliteFile(ENTITIES, 'lorekeeper-worker-');
    this.db = this.file.db;
    this.store = new TypeOrmEventStore(this.db);
    this.reader = new CampaignReader(this.db, this.store);
    this.memories = new MemoryReader(this.db);
    this.checkpoints = new CheckpointStore(this.db);
    const projector = new CampaignProjector();
    projector.addProjection(new CheckpointProjection());
    this.runner = new CampaignRunner(this.db, this.store, projector, this.clock);
    return this;
  }

  worker(options: Partial<WorkerOptions> = {}, reader: CampaignReader = this.reader): MemoryWorker {
    const logger = {
      log: () => undefined,
      warn: (message: string, context?: Record<string, unknown>) => this.warnings.push({ message, context }),
      error: () => undefined,
    };
    const worker = new MemoryWorker(
      this.db,
      this.store,
      reader,
      new MemoryProjector(),
      this.summarizer,
      new WorkerProgress(),
      logger,
      {
        attempts: 2,
        timeoutMs: 2000,
        concurrency: 4,
        ...options,
      },
    );
    this.workers.push(worker);
    return worker;
  }

  async write(campaignId: string, command: CampaignCommand): Promise<number> {
    this.clock.advance(60_000);
    return (await this.runner.run(campaignId, command, {})).reply.version;
  }

  /** Records messages; strings are player lines at the current location. */
  async say(campaignId: string, ...messages: Array<string | MessageInput>): Promise<number> {
    const inputs = messages.map((m): MessageInput => (typeof m === 'string' ? { role: 'player', content: m } : m));
    return this.write(campaignId, { type: 'RecordMessages', messages: inputs, now: this.clock.now().toISOString() });
  }

  move(campaignId: string, toLocationId: string): Promise<number> {
    return this.write(campaignId, { type: 'ChangeLocation', toLocationId });
  }

  /** Two places, three NPCs (Mira and Bob at the tavern, Cara at the docks), a quest; the party at the tavern. */
  async campaign(id: string): Promise<void> {
    await this.write(id, { type: 'CreateCampaign', name: `Saga ${id}` });
    await this.write(id, { type: 'PutLocation', locationId: 'tavern', name: 'Rusty Anchor' });
    await this.write(id, { type: 'PutLocation', locationId: 'docks', name: 'Docks' });
    await this.write(id, {
      type: 'PutNpc',
      npcId: 'mira',
      name: 'Mira',
      aliases: ['the barkeep'],
      locationId: 'tavern',
    });
    await this.write(id, { type: 'PutNpc', npcId: 'bob', name: 'Bob', locationId: 'tavern' });
    await this.write(id, { type: 'PutNpc', npcId: 'cara', name: 'Cara', locationId: 'docks' });
    await this.write(id, {
      type: 'PutQuest',
      questId: 'relic',
      name: 'Find the Relic',
      objectives: [
        { id: 'map', name: 'Buy the map' },
        { id: 'crypt', name: 'Enter the crypt' },
      ],
    });
    await this.move(id, 'tavern');
  }

  async runWorker(worker = this.worker()): Promise<MemoryWorker> {
    await worker.catchUp();
    await worker.idle();
    return worker;
  }

  memoryEvents(campaignId: string) {
    return this.store.readStream(memoryStream(campaignId));
  }

  async close(): Promise<void> {
    for (const w of this.workers) await w.stop();
    await this.file.close();
  }
}

const callsOf = (h: Harness, method?: Call['method'], subject?: string) =>
  h.summarizer.calls
    .filter((c) => (!method || c.method === method) && (!subject || c.subject === subject))
    .map((c) => c.indexes);

describe('MemoryWorker on SQLite with a scripted summarizer', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await new Harness().open();
  });
  afterEach(() => h.close());

  describe('scope selection (CampaignReader.messagesForScope)', () => {
    beforeEach(async () => {
      await h.campaign('c1');
      await h.say(
        'c1',
        't0',
        't1',
        { role: 'dm', content: 'd2', locationId: 'docks' },
        { role: 'dm', content: 'n3', locationId: null },
        't4',
      );
    });
    const select = async (o: { locationId?: string; afterIndex: number; beforeVersion?: number }) =>
      (await h.reader.messagesForScope('c1', { beforeVersion: 1_000, ...o })).map((m) => m.index);

    it('filters by location; without one (world) it takes every location, nowhere included', async () => {
      expect(await select({ locationId: 'tavern', afterIndex: -1 })).toEqual([0, 1, 4]);
      expect(await select({ locationId: 'docks', afterIndex: -1 })).toEqual([2]);
      expect(await select({ afterIndex: -1 })).toEqual([0, 1, 2, 3, 4]);
    });

    it('takes only messages after the cursor', async () => {
      expect(await select({ locationId: 'tavern', afterIndex: 1 })).toEqual([4]);
      expect(await select({ afterIndex: 3 })).toEqual([4]);
      expect(await select({ afterIndex: 4 })).toEqual([]);
    });

    it('takes only messages recorded before the trigger version', async () => {
      const v = await h.say('c1', 't5');
      await h.say('c1', 't6');
      expect(await select({ locationId: 'tavern', afterIndex: -1, beforeVersion: v })).toEqual([0, 1, 4]);
      expect(await select({ locationId: 'tavern', afterIndex: -1, beforeVersion: v + 1 })).toEqual([0, 1, 4, 5]);
    });
  });

  it('the first move from nowhere summarizes nothing', async () => {
    await h.campaign('c1');
    await h.runWorker();
    expect(h.summarizer.calls).toEqual([]);
    const snap = await h.reader.get('c1');
    expect((await h.checkpoints.get('c1')).processedVersion).toBe(snap.state.version);
  });

  it('leaving a location records one memory of its messages and moves its cursor to the last index', async () => {
    await h.campaign('c1');
    await h.say('c1', 'We enter.', { role: 'dm', content: 'Elsewhere.', locationId: 'docks' }, 'We order ale.');
    const trigger = await h.move('c1', 'docks');
    await h.runWorker();
    expect(callsOf(h, 'location')).toEqual([[0, 2]]);
    const [memory] = await h.memories.list('c1', { scope: 'location', limit: 10 });
    expect(memory).toMatchObject({
      scope: 'location',
      subjectId: 'tavern',
      summary: 'location tavern saw 0,2',
      tags: ['location:tavern'],
      locationId: 'tavern',
      sinceMessageIndex: 0,
      throughMessageIndex: 2,
      triggerVersion: trigger,
    });
    expect((await h.memories.cursors('c1')).locations).toEqual({ tavern: 2 });
  });

  it('NPC memories only for NPCs present at the left location AND mentioned there, window ±1', async () => {
    await h.campaign('c1');
    await h.say(
      'c1',
      'We sit down.',
      'Quiet music.',
      'I ask the barkeep for rumours.',
      'She shrugs.',
      'Cara is at the docks, they say.',
      'Later.',
      'More later.',
    );
    await h.move('c1', 'docks');
    await h.runWorker();
    // Mira (present, named by alias at 2) gets 1..3; Bob (present, silent) and Cara (named, but not present) get
    // nothing.
    expect(callsOf(h, 'npc')).toEqual([[1, 2, 3]]);
    expect(h.summarizer.calls.filter((c) => c.method === 'npc').map((c) => c.subject)).toEqual(['mira']);
    const npcMemories = await h.memories.list('c1', { scope: 'npc', limit: 10 });
    expect(npcMemories.map((m) => [m.subjectId, m.npcIds, m.tags, m.throughMessageIndex])).toEqual([
      ['mira', ['mira'], ['npc:mira', 'location:tavern'], 3],
    ]);
    expect(await h.memories.cursors('c1')).toMatchObject({ npcs: { mira: 3 }, locations: { tavern: 6 } });
  });

  describe('retry policy', () => {
    it('empty twice → MemorySkipped, cursor kept, exactly 2 calls, a warning; the messages are offered again next time', async () => {
      await h.campaign('c1');
      await h.say('c1', 'first', 'second');
      const trigger = await h.move('c1', 'docks');
      h.summarizer.script = () => '  ';
      await h.runWorker();
      expect(h.summarizer.calls).toHaveLength(2);
      const events = await h.memoryEvents('c1');
      expect(
        events.map((e) => [
          e.type,
          e.data.scope,
          e.data.subjectId,
          e.data.reason,
          e.data.attempts,
          e.data.triggerVersion,
        ]),
      ).toEqual([['MemorySkipped', 'location', 'tavern', 'empty', 2, trigger]]);
      expect(await h.memories.list('c1', { limit: 10 })).toEqual([]);
      expect((await h.memories.cursors('c1')).locations).toEqual({});
      expect(h.warnings).toHaveLength(1);
      expect(h.warnings[0].context).toMatchObject({
        campaignId: 'c1',
        triggerVersion: trigger,
        scope: 'location',
        subjectId: 'tavern',
      });
      const snap = await h.reader.get('c1');
      expect((await h.checkpoints.get('c1')).processedVersion).toBe(snap.state.version);

      h.summarizer.script = (c) => `ok ${c.indexes.join(',')}`;
      await h.move('c1', 'tavern');
      await h.say('c1', 'third');
      await h.move('c1', 'docks');
      await h.runWorker();
      expect(callsOf(h, 'location', 'tavern').slice(2)).toEqual([[0, 1, 2]]);
      expect((await h.memories.cursors('c1')).locations).toEqual({ tavern: 2 });
    });

    it('empty then text → the memory, recorded with 2 attempts, after exactly 2 calls', async () => {
      await h.campaign('c1');
      await h.say('c1', 'first');
      await h.move('c1', 'docks');
      h.summarizer.script = (_c, n) => (n === 0 ? '' : 'The party arrived.');
      await h.runWorker();
      expect(h.summarizer.calls).toHaveLength(2);
      const events = await h.memoryEvents('c1');
      expect(events.map((e) => [e.type, e.data.summary, e.data.attempts])).toEqual([
        ['MemoryRecorded', 'The party arrived.', 2],
      ]);
      expect((await h.memories.cursors('c1')).locations).toEqual({ tavern: 0 });
    });

    it('an error counts as a failed attempt; each scope of a trigger succeeds or fails on its own', async () => {
      await h.campaign('c1');
      await h.say('c1', 'Mira smiles.');
      await h.move('c1', 'docks');
      h.summarizer.script = (c) => (c.method === 'npc' ? new Error('503 overloaded') : 'The party left.');
      await h.runWorker();
      const events = await h.memoryEvents('c1');
      expect(events.map((e) => [e.type, e.data.subjectId, e.data.reason ?? null])).toEqual([
        ['MemoryRecorded', 'tavern', null],
        ['MemorySkipped', 'mira', 'error: 503 overloaded'],
      ]);
      expect(await h.memories.cursors('c1')).toMatchObject({ locations: { tavern: 0 }, npcs: {} });
    });

    it('a call slower than the timeout is a failed attempt', async () => {
      await h.campaign('c1');
      await h.say('c1', 'first');
      await h.move('c1', 'docks');
      h.summarizer.script = () => 'hang';
      await h.runWorker(h.worker({ timeoutMs: 30 }));
      expect(h.summarizer.calls).toHaveLength(2);
      expect(h.summarizer.calls.every((c) => c.signal?.aborted)).toBe(true);
      expect((await h.memoryEvents('c1')).map((e) => [e.type, e.data.reason])).toEqual([
        ['MemorySkipped', 'timeout after 30 ms'],
      ]);
    });
  });

  describe('trigger bounding', () => {
    it('a message recorded after the move is never in that move’s memory, even at the left location', async () => {
      await h.campaign('c1');
      await h.say('c1', 'before-0', 'before-1');
      await h.move('c1', 'docks');
      await h.say(
        'c1',
        { role: 'dm', content: 'late-2 Mira', locationId: 'tavern' },
        { role: 'dm', content: 'late-3', locationId: 'tavern' },
      );
      await h.runWorker();
      expect(callsOf(h, 'location')).toEqual([[0, 1]]);
      expect(callsOf(h, 'npc')).toEqual([]);
      expect((await h.memories.cursors('c1')).locations).toEqual({ tavern: 1 });

      // They belong to the next exit from the tavern.
      await h.move('c1', 'tavern');
      await h.move('c1', 'docks');
      await h.runWorker();
      expect(callsOf(h, 'location')).toEqual([
        [0, 1],
        [2, 3],
      ]);
      // her cursor never moved: 1 is the message before the mention
      expect(callsOf(h, 'npc', 'mira')).toEqual([[1, 2, 3]]);
    });

    it('a world memory holds only messages recorded before its event', async () => {
      await h.campaign('c1');
      await h.say('c1', 'We buy the map.');
      await h.write('c1', { type: 'CompleteObjective', questId: 'relic', objectiveId: 'map' });
      await h.say('c1', 'after the objective');
      await h.write('c1', { type: 'CompleteQuest', questId: 'relic' });
      await h.say('c1', 'after the quest');
      await h.runWorker();
      expect(h.summarizer.calls.map((c) => [c.subject, c.indexes])).toEqual([
        ['objective_completed', [0]],
        ['quest_completed', [1]],
      ]);
      expect((await h.memories.cursors('c1')).world).toBe(1);
    });
  });

  it('world memories carry their tags and related ids; CLEARED + an encounter in one command gives one memory', async () => {
    await h.campaign('c1');
    await h.say('c1', 'The lich falls.');
    await h.write('c1', {
      type: 'UpdateLocationState',
      locationId: 'tavern',
      dangerLevel: 'CLEARED',
      completeEncounter: 'lich',
    });
    await h.say('c1', 'Onward.');
    await h.write('c1', { type: 'ProgressAct', actId: 'act-2' });
    await h.runWorker();
    expect(h.summarizer.calls.map((c) => [c.subject, c.indexes])).toEqual([
      ['location_cleared', [0]],
      ['act_progressed', [1]],
    ]);
    const world = await h.memories.list('c1', { scope: 'world', limit: 10 });
    expect(world.map((m) => [m.tags, m.locationId, m.questId, m.encounterId])).toEqual([
      [['world:act_progressed', 'act:act-2'], null, null, null],
      [['world:location_cleared', 'location:tavern'], 'tavern', null, null],
    ]);
  });

  it('nothing is summarized twice for a scope across many triggers, and nothing before a trigger is lost', async () => {
    await h.campaign('c1');
    const tavernIdx: number[] = [];
    let index = 0;
    const sayHere = async (place: 'tavern' | 'docks', text: string) => {
      await h.say('c1', text);
      if (place === 'tavern') tavernIdx.push(index);
      index++;
    };
    await sayHere('tavern', 'Mira pours.');
    await sayHere('tavern', 'Bob sings.');
    await h.move('c1', 'docks');
    await sayHere('docks', 'Cara waves.');
    await h.write('c1', { type: 'CompleteObjective', questId: 'relic', objectiveId: 'map' });
    await h.runWorker();
    await h.move('c1', 'tavern');
    await sayHere('tavern', 'Mira again.');
    await h.write('c1', { type: 'ProgressAct', actId: 'act-2' });
    await sayHere('tavern', 'Bob again.');
    await h.move('c1', 'docks');
    await h.move('c1', 'tavern');
    await sayHere('tavern', 'the barkeep laughs');
    await h.move('c1', 'docks');
    await h.write('c1', { type: 'CompleteQuest', questId: 'relic' });
    await h.runWorker();
    await h.runWorker();

    const byScope = new Map<string, number[]>();
    for (const c of h.summarizer.calls) {
      const key = c.method === 'world' ? 'world' : `${c.method}:${c.subject}`;
      byScope.set(key, [...(byScope.get(key) ?? []), ...c.indexes]);
    }
    for (const [scope, indexes] of byScope)
      expect({ scope, unique: new Set(indexes).size }).toEqual({ scope, unique: indexes.length });
    expect(byScope.get('location:tavern')).toEqual(tavernIdx);
    expect(byScope.get('location:docks')).toEqual([2]);
    expect(byScope.get('world')).toEqual([0, 1, 2, 3, 4, 5]);
    const snap = await h.reader.get('c1');
    expect((await h.checkpoints.get('c1')).processedVersion).toBe(snap.state.version);
  });

  it('issue 33: wakes within the drain gap of a drain wait for it, then one drain covers them; idle() waits', async () => {
    await h.campaign('c1');
    const drains = jest.spyOn(CampaignDrain.prototype, 'drain');
    try {
      const worker = h.worker({ drainGapMs: 1000 });
      worker.wake('c1');
      const started = performance.now();
      for (const line of ['one', 'two', 'three']) {
        await h.say('c1', line);
        worker.wake('c1');
      }
      await worker.idle();
      expect(drains).toHaveBeenCalledTimes(2);
      expect(performance.now() - started).toBeGreaterThanOrEqual(900);
      const snap = await h.reader.get('c1');
      expect((await h.checkpoints.get('c1')).processedVersion).toBe(snap.state.version);
    } finally {
      drains.mockRestore();
    }
  });

  it('a fresh worker on the same file catches up from the checkpoint and redoes nothing', async () => {
    await h.campaign('c1');
    await h.say('c1', 'first');
    await h.move('c1', 'docks');
    await h.runWorker();
    expect(h.summarizer.calls).toHaveLength(1);
    await h.say('c1', 'at the docks');
    await h.move('c1', 'tavern');
    await h.runWorker(h.worker());
    await h.runWorker(h.worker());
    expect(callsOf(h, 'location')).toEqual([[0], [1]]);
    expect((await h.memoryEvents('c1')).map((e) => e.version)).toEqual([1, 2]);
  });

  it('stopping while a summary is in flight commits nothing; the next worker does the trigger once', async () => {
    await h.campaign('c1');
    await h.say('c1', 'first');
    await h.move('c1', 'docks');
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    h.summarizer.script = () => {
      started();
      return 'hang';
    };
    const first = h.worker();
    await first.catchUp();
    await inFlight;
    await first.stop();
    const before = await h.reader.get('c1');
    expect((await h.checkpoints.get('c1')).processedVersion).toBeLessThan(before.state.version);
    expect(await h.memoryEvents('c1')).toEqual([]);

    h.summarizer.script = () => 'Recovered.';
    await h.runWorker(h.worker());
    expect((await h.memoryEvents('c1')).map((e) => [e.type, e.data.summary])).toEqual([
      ['MemoryRecorded', 'Recovered.'],
    ]);
    const after = await h.reader.get('c1');
    expect((await h.checkpoints.get('c1')).processedVersion).toBe(after.state.version);
  });

  it('§10: a summary in flight when the campaign moves to another timeline commits nothing (the fence)', async () => {
    await h.campaign('c1');
    await h.say('c1', 'first');
    await h.move('c1', 'docks');
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    let answer!: (text: string) => void;
    h.summarizer.script = () => {
      started();
      return new Promise<string>((resolve) => (answer = resolve));
    };
    const worker = h.worker();
    await worker.catchUp();
    await inFlight;
    // What a rewind does to the two fences (lane 4 does the rest): the campaign row and memory's checkpoint.
    await h.db.transaction(async (m) => {
      await m.query(`UPDATE campaigns SET timeline = 2 WHERE id = 'c1'`);
      await m.query(`UPDATE memory_checkpoints SET timeline = 2 WHERE campaign_id = 'c1'`);
    });
    answer('Too late.');
    await worker.idle();
    expect(await h.memoryEvents('c1')).toEqual([]);
    expect((await h.checkpoints.get('c1')).processedVersion).toBe(0);

    h.summarizer.script = () => 'Redone.';
    await h.runWorker(worker);
    expect((await h.memoryEvents('c1')).map((e) => [e.type, e.data.summary])).toEqual([['MemoryRecorded', 'Redone.']]);
    expect(await h.checkpoints.get('c1')).toMatchObject({ timeline: 2, memoryVersion: 1 });
    await worker.stop();
  });

  it('events appended while the worker reads are handled with the state that knows them (NPC registered, then a move)', async () => {
    /** A real reader that lets another write commit right after the worker read the campaign's heads. */
    class InterleavingReader extends CampaignReader {
      between?: () => Promise<void>;
      override async heads(id: string) {
        const snap = await super.heads(id);
        const between = this.between;
        this.between = undefined;
        if (between) await between();
        return snap;
      }
    }
    await h.campaign('c1');
    await h.say('c1', 'We wait.');
    const reader = new InterleavingReader(h.db, h.store);
    reader.between = async () => {
      await h.write('c1', { type: 'PutNpc', npcId: 'eli', name: 'Eli', locationId: 'tavern' });
      await h.say('c1', 'Eli grins.');
      await h.move('c1', 'docks');
    };
    await h.runWorker(h.worker({}, reader));
    const events = await h.memoryEvents('c1');
    expect(events.map((e) => [e.type, e.data.scope, e.data.subjectId])).toEqual([
      ['MemoryRecorded', 'location', 'tavern'],
      ['MemoryRecorded', 'npc', 'eli'],
    ]);
    // §8: Eli's memory holds what Eli witnessed — "We wait." was said before Eli was there.
    expect(callsOf(h, 'npc', 'eli')).toEqual([[1]]);
  });

  describe('scheduling', () => {
    /** Resolves when `ready()` is true, or after `ms` with false (so a wrong schedule fails instead of hanging). */
    const until = async (ready: () => boolean, ms = 3000) => {
      const deadline = Date.now() + ms;
      while (!ready()) {
        if (Date.now() > deadline) return false;
        await new Promise((r) => setTimeout(r, 2));
      }
      return true;
    };

    async function twoTriggers(id: string) {
      await h.campaign(id);
      await h.say(id, `${id} one`);
      await h.move(id, 'docks');
      await h.say(id, `${id} two`);
      await h.move(id, 'tavern');
    }

    it('campaigns run in parallel, each strictly in trigger order', async () => {
      await twoTriggers('a');
      await twoTriggers('b');
      const inFlight = new Map<string, number>();
      const maxPerCampaign = new Map<string, number>();
      const order: string[] = [];
      let sawOverlap = false;
      h.summarizer.script = async (c) => {
        inFlight.set(c.campaignId, (inFlight.get(c.campaignId) ?? 0) + 1);
        maxPerCampaign.set(c.campaignId, Math.max(maxPerCampaign.get(c.campaignId) ?? 0, inFlight.get(c.campaignId)!));
        order.push(`${c.campaignId}:${c.subject}`);
        // A campaign's first call waits (≤ 1 s) for the other campaign to start: only a parallel worker overlaps them.
        const other = c.campaignId === 'a' ? 'b' : 'a';
        if ((inFlight.get(other) ?? 0) > 0) sawOverlap = true;
        const first = order.filter((o) => o.startsWith(`${c.campaignId}:`)).length === 1;
        if (first) await until(() => order.some((o) => o.startsWith(`${other}:`)), 1000);
        inFlight.set(c.campaignId, inFlight.get(c.campaignId)! - 1);
        return `${c.subject}`;
      };
      await h.runWorker(h.worker({ concurrency: 2 }));
      expect(sawOverlap).toBe(true);
      expect([...maxPerCampaign.values()]).toEqual([1, 1]);
      for (const id of ['a', 'b'])
        expect(order.filter((o) => o.startsWith(`${id}:`))).toEqual([`${id}:tavern`, `${id}:docks`]);
      for (const id of ['a', 'b'])
        expect((await h.memories.list(id, { limit: 10 })).map((m) => m.subjectId)).toEqual(['docks', 'tavern']);
    });

    it('MEMORY_CONCURRENCY bounds how many campaigns are summarized at once', async () => {
      for (const id of ['a', 'b', 'c']) await twoTriggers(id);
      let now = 0;
      let max = 0;
      h.summarizer.script = async (c) => {
        max = Math.max(max, ++now);
        await new Promise((r) => setTimeout(r, 5));
        now--;
        return c.subject;
      };
      await h.runWorker(h.worker({ concurrency: 1 }));
      expect(max).toBe(1);
      expect(h.summarizer.calls).toHaveLength(6);
    });
  });
});
