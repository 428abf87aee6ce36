import { FixedClock } from '@app/common';
import { EventRecord, TypeOrmEventStore } from '@app/event-store';
import { Database, IdempotencyRecord } from '@app/database';
import { DataSource } from 'typeorm';
import { openSqliteFile, SqliteFile } from '../../../test/support/sqlite-file';
import { CampaignRunner } from './campaign.runner';
import { CampaignState, Message } from './domain/state';
import { CampaignRecord, CampaignTimelineRecord } from './projections/campaign.entity';
import { CampaignProjector } from './projections/campaign.projector';
import { MessageRecord } from './projections/message.entity';

const NAME = 'Saga of the parse counter';

/** A runner over a fresh SQLite file with the campaign's tables. */
async function openRunner(clock: FixedClock) {
  const file = await openSqliteFile();
  const { ds, db } = file;
  const projector = new CampaignProjector();
  return { file, ds, db, projector, runner: new CampaignRunner(db, new TypeOrmEventStore(db), projector, clock) };
}

describe('CampaignRunner on SQLite: writes that share a commit group', () => {
  let file: SqliteFile;
  let ds: DataSource;
  let db: Database;
  let projector: CampaignProjector;
  let runner: CampaignRunner;
  const clock = new FixedClock(new Date('2026-03-01T10:00:00.000Z'));

  beforeEach(async () => {
    ({ file, ds, db, projector, runner } = await openRunner(clock));
    await runner.run('c1', { type: 'CreateCampaign', name: NAME }, {});
    await runner.run('c1', { type: 'PutLocation', locationId: 'tavern', name: 'Rusty Anchor' }, {});
    await runner.run('c1', { type: 'ChangeLocation', toLocationId: 'tavern' }, {});
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await file.close();
  });

  const say = (content: string) =>
    runner.run(
      'c1',
      { type: 'RecordMessages', messages: [{ role: 'player', content }], now: clock.now().toISOString() },
      {},
    );

  /** The state as a fresh projector (empty cache) parses it from the row. */
  const reloaded = () => db.read((m) => new CampaignProjector().load(m, 'c1'));

  it('serves each member of a group the state the previous member wrote, without parsing the document again', async () => {
    const parse = jest.spyOn(JSON, 'parse');
    const documentParses = () =>
      parse.mock.calls.filter(([text]) => typeof text === 'string' && text.includes(NAME)).length;
    const commits = jest.spyOn(ds, 'transaction');

    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => say(`line ${i}`)));

    expect(commits).toHaveBeenCalledTimes(1); // one group
    expect(documentParses()).toBe(0); // was 9: every member after the first read a version no commit had cached
    expect(answers.map((a) => a.reply.version)).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    const last = await db.read((m) => projector.load(m, 'c1')); // the state the last member cached
    const fresh = await reloaded();
    expect(fresh).toEqual(last);
    expect(fresh.messageCount).toBe(10);
    const rows = await db.read((m) =>
      m.getRepository(MessageRecord).find({ where: { campaignId: 'c1' }, order: { index: 'ASC' } }),
    );
    expect(rows.map((r) => [r.index, r.content, Number(r.version)])).toEqual(
      Array.from({ length: 10 }, (_, i) => [i, `line ${i}`, 4 + i]),
    );
  });

  it('does not let a member that failed after writing its state leak that state to the next member', async () => {
    // A listener of the projection that fails for one message: that member has already written its
    // campaign row when it fails, and its savepoint takes the row back.
    projector.addIndexer({
      indexMessages: async (_m, _id, messages: Message[]) => {
        if (messages.some((x) => x.content === 'cursed')) throw new Error('index down');
      },
    });
    const commits = jest.spyOn(ds, 'transaction');
    const results = await Promise.allSettled(['a', 'b', 'cursed', 'c', 'd'].map((c) => say(c)));

    // One group, no member retried: 'c' decided on the row as the savepoint left it (version 5), not on
    // the state 'cursed' wrote (version 6), which would have lost the append's version check.
    expect(commits).toHaveBeenCalledTimes(1);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const versions = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.reply.version] : []));
    expect(versions).toEqual([4, 5, 6, 7]);
    const fresh: CampaignState = await reloaded();
    expect(fresh.version).toBe(7);
    expect(fresh.messageCount).toBe(4);
    const rows = await db.read((m) =>
      m.getRepository(MessageRecord).find({ where: { campaignId: 'c1' }, order: { index: 'ASC' } }),
    );
    expect(rows.map((r) => [r.index, r.content])).toEqual([
      [0, 'a'],
      [1, 'b'],
      [2, 'c'],
      [3, 'd'],
    ]);
    expect((results[3] as PromiseFulfilledResult<{ reply: unknown }>).value.reply).toEqual({
      version: 6,
      timeline: 1,
      indexes: [2],
    });
  });
});

describe('CampaignRunner: the answer stored for an Idempotency-Key', () => {
  let file: SqliteFile;
  let db: Database;
  let runner: CampaignRunner;
  const clock = new FixedClock(new Date('2026-03-01T10:00:00.000Z'));
  const idem = (key: string, requestHash = 'h') => ({ idempotency: { scope: 'c1', key, requestHash } });

  beforeEach(async () => {
    ({ file, db, runner } = await openRunner(clock));
    await runner.run('c1', { type: 'CreateCampaign', name: NAME }, {});
  });
  afterEach(() => file.close());

  it('replays the reply of the first request, not the state of later ones, and appends nothing', async () => {
    const put = { type: 'PutLocation', locationId: 'tavern', name: 'Rusty Anchor' } as const;
    const first = await runner.run('c1', put, idem('k-1'));
    await runner.run('c1', { ...put, name: 'The Drowned Rat' }, {});
    const again = await runner.run('c1', put, idem('k-1'));
    expect(first).toMatchObject({
      replayed: false,
      reply: { version: 2, location: { id: 'tavern', name: 'Rusty Anchor' } },
    });
    expect(again).toEqual({ replayed: true, events: [], reply: first.reply });
    const rows = await db.read((m) => m.getRepository(IdempotencyRecord).find());
    expect(rows.map((r) => JSON.parse(r.body))).toEqual([{ reply: first.reply }]);
    const versions = await db.read((m) => m.getRepository(EventRecord).count());
    expect(versions).toBe(3);
  });

  it('sends back as it is a body an older release stored for the key (a rendered answer, not a reply)', async () => {
    const body = { version: 1, location: { id: 'tavern', name: 'Rendered by an older release' } };
    await db.transaction((m) =>
      m
        .getRepository(IdempotencyRecord)
        .insert({ scope: 'c1', key: 'old', requestHash: 'h', status: 0, body: JSON.stringify(body), createdAt: '' }),
    );
    const out = await runner.run(
      'c1',
      { type: 'PutLocation', locationId: 'tavern', name: 'Rusty Anchor' },
      idem('old'),
    );
    expect(out).toMatchObject({ replayed: true, events: [], storedBody: body });
  });
});

describe('CampaignRunner: If-Match by timeline (DESIGN §10) and command preparers', () => {
  let file: SqliteFile;
  let ds: DataSource;
  let runner: CampaignRunner;
  const clock = new FixedClock(new Date('2026-03-01T10:00:00.000Z'));
  const put = (name: string) => ({ type: 'PutLocation', locationId: 'tavern', name }) as const;

  beforeEach(async () => {
    ({ file, ds, runner } = await openRunner(clock));
    await runner.run('c1', { type: 'CreateCampaign', name: NAME }, {});
    await runner.run('c1', put('Rusty Anchor'), {});
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await file.close();
  });

  /**
   * The campaign as a rewind from version 5 to 1 left it (timeline 2), grown back to version 2: written to its row
   * and `campaign_timelines`, as a rewind does, so the append's timeline fence sees the same timeline as `load`.
   */
  const rewound = async () => {
    await ds.getRepository(CampaignRecord).update({ id: 'c1' }, { timeline: 2 });
    await ds.getRepository(CampaignTimelineRecord).insert({
      campaignId: 'c1',
      timeline: 2,
      fromVersion: 5,
      toVersion: 1,
      memoryVersion: 0,
      keptAs: null,
      rewoundAt: clock.now().toISOString(),
    });
  };

  it('accepts <timeline>:<version> only when both match, and names the exact form in the 412', async () => {
    await expect(runner.run('c1', put('A'), { expectedVersion: 2, expectedTimeline: 2 })).rejects.toMatchObject({
      code: 'VERSION_MISMATCH',
      message: expect.stringContaining('is at 1:2'),
    });
    const ok = await runner.run('c1', put('B'), { expectedVersion: 2, expectedTimeline: 1 });
    expect(ok.reply).toMatchObject({ version: 3, timeline: 1 });
  });

  it('refuses a plain version an earlier timeline also reached, even after the campaign grew back past it', async () => {
    await rewound();
    await expect(runner.run('c1', put('A'), { expectedVersion: 2 })).rejects.toMatchObject({
      kind: 'precondition',
      code: 'VERSION_MISMATCH',
      message: expect.stringContaining('send "2:2"'),
    });
    const exact = await runner.run('c1', put('B'), { expectedVersion: 2, expectedTimeline: 2 });
    expect(exact.reply).toMatchObject({ version: 3, timeline: 2 });
  });

  it('lets a registered preparer complete a command inside the write, before decide', async () => {
    await expect(runner.run('c1', { type: 'DeleteMemory', memoryId: 'm1' }, {})).rejects.toMatchObject({
      code: 'MEMORY_NOT_FOUND',
    });
    const seen: unknown[] = [];
    runner.prepareWith(async (m, campaignId, command) => {
      seen.push([m.queryRunner?.isTransactionActive, campaignId, command.type]);
      return command.type === 'DeleteMemory' ? { ...command, exists: command.memoryId === 'm1' } : command;
    });
    const out = await runner.run('c1', { type: 'DeleteMemory', memoryId: 'm1' }, {});
    expect(out.events.map((e) => [e.type, e.data])).toEqual([['MemoryDeleted', { memoryId: 'm1' }]]);
    await expect(runner.run('c1', { type: 'DeleteMemory', memoryId: 'm2' }, {})).rejects.toMatchObject({
      code: 'MEMORY_NOT_FOUND',
    });
    expect(seen[0]).toEqual([true, 'c1', 'DeleteMemory']);
  });
});
