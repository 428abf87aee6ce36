import { FixedClock } from '@app/common';
import { Database, sql } from '@app/database';
import { TypeOrmEventStore } from '@app/event-store';
import { openSqliteFile, SqliteFile } from '../../../../test/support/sqlite-file';
import { CampaignReader } from '../campaign.reader';
import { CampaignRunner } from '../campaign.runner';
import { CampaignProjector } from '../projections/campaign.projector';
import { retractedAmong } from '../projections/message.queries';
const NOW = '2026-03-01T10:00:00.000Z';

describe('§10 lane 0 reads: timeline, naive stateAt, retractedAmong (SQLite)', () => {
  let file: SqliteFile;
  let db: Database;
  let runner: CampaignRunner;
  let reader: CampaignReader;

  beforeAll(async () => {
    file = await openSqliteFile();
    db = file.db;
    const store = new TypeOrmEventStore(db);
    const projector = new CampaignProjector();
    runner = new CampaignRunner(db, store, projector, new FixedClock(new Date(NOW)));
    reader = new CampaignReader(db, store, projector.cache);
    await runner.run('c1', { type: 'CreateCampaign', name: 'Saga' }, {});
    await runner.run('c1', { type: 'PutLocation', locationId: 'inn', name: 'Inn' }, {});
    await runner.run('c1', { type: 'PutLocation', locationId: 'inn', name: 'The Rusty Anchor' }, {});
    const say = (content: string) => ({ role: 'dm' as const, content });
    await runner.run('c1', { type: 'RecordMessages', messages: [say('one'), say('two')], now: NOW }, {});
  });

  afterAll(() => file.close());

  it('stateAt(V) is the state as it stood at V; outside 1..version it is 400 INVALID_VERSION', async () => {
    const at2 = await reader.stateAt('c1', 2);
    expect([at2.version, at2.locations.inn.name, at2.messageCount, at2.timeline]).toEqual([2, 'Inn', 0, 1]);
    const at3 = await reader.stateAt('c1', 3);
    expect([at3.version, at3.locations.inn.name]).toEqual([3, 'The Rusty Anchor']);
    expect((await reader.stateAt('c1', 4)).messageCount).toBe(1); // one MessageRecorded per message
    for (const v of [0, 6, 1.5])
      await expect(reader.stateAt('c1', v)).rejects.toMatchObject({ code: 'INVALID_VERSION' });
  });

  it('the campaign row gives the timeline to the state and to lockForAppend; a gone campaign is null', async () => {
    expect((await reader.get('c1')).state.timeline).toBe(1);
    expect(await db.transaction((m) => reader.lockForAppend(m, 'c1'))).toEqual({ timeline: 1 });
    expect(await db.transaction((m) => reader.lockForAppend(m, 'nope'))).toBeNull();
  });

  it('a state cached in timeline 1 is not served once the row is in timeline 2 at the same version', async () => {
    const before = (await reader.get('c1')).state;
    await db.transaction((m) => sql(m, `UPDATE campaigns SET timeline = 2 WHERE id = 'c1'`));
    try {
      const after = (await reader.get('c1')).state;
      expect([after.version, after.timeline]).toEqual([before.version, 2]);
      expect(after).not.toBe(before);
    } finally {
      await db.transaction((m) => sql(m, `UPDATE campaigns SET timeline = 1 WHERE id = 'c1'`));
    }
  });

  it('retractedAmong names the retracted indexes, now or as of a version', async () => {
    await db.transaction((m) =>
      sql(m, `UPDATE messages SET retracted_version = 7 WHERE campaign_id = 'c1' AND idx = 1`),
    );
    const among = (v?: number) => db.transaction((m) => retractedAmong(m, 'c1', [0, 1, 2], v));
    expect([...(await among())]).toEqual([1]);
    expect([...(await among(7))]).toEqual([1]);
    expect([...(await among(6))]).toEqual([]);
  });
});
