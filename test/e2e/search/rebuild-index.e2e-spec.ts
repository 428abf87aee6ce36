import { testDatabaseUrl } from '../../support/test-postgres';
import { createDataSource } from '@app/database';
import { rebuildIndex } from '../../../scripts/rebuild-index';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(60_000);

const QUERIES = [
  '/v1/campaigns/reb/search?q=iron%20ore',
  '/v1/campaigns/reb/search?q=vault&in=reasoning',
  '/v1/campaigns/reb/search?q=brinemoor&in=memories',
  '/v1/campaigns/reb2/search?q=iron',
  '/v1/broadcasts?q=pirates',
];

// Opens the SQLite file directly; the PostgreSQL index is rebuilt by the same code through TypeORM.
(testDatabaseUrl() ? describe.skip : describe)(
  'npm run rebuild-index (replays the event log into an emptied index)',
  () => {
    it('re-creates exactly the answers the live index gave', async () => {
      let t: TestApp = await startTestApp();
      const dbPath = t.dbPath;
      const s = scenario(t, 'reb');
      await s.create();
      await s.location('lighthouse', 'Brinemoor Lighthouse');
      await s.location('docks', 'Docks');
      await s.move('lighthouse');
      await s.say(
        { role: 'player', speaker: 'Aria', content: 'We haul iron ore up to the lamp room.' },
        { role: 'assistant', content: 'Noted.', reasoning: 'The vault key is under the lamp.' },
        { role: 'dm', content: 'The iron door creaks; ore dust everywhere.' },
      );
      await s.move('docks');
      await s.settled();
      await scenario(t, 'reb2').create();
      await scenario(t, 'reb2').say({ role: 'player', content: 'An iron ring.' });
      expect(
        (await t.http('POST', '/v1/broadcasts', { content: 'Pirates near the docks.', from: 'scout' })).status,
      ).toBe(201);

      const answers = async () => Promise.all(QUERIES.map(async (q) => (await t.http('GET', q)).body.items));
      const before = await answers();
      expect(before.map((items) => items.length)).toEqual([2, 1, 1, 1, 1]);
      await t.close();

      // The index is lost (e.g. a copied database without it); the events are the truth.
      const raw = createDataSource({ database: { type: 'sqlite', path: dbPath }, entities: [], migrations: [] });
      await raw.initialize();
      for (const table of ['search_messages', 'search_reasoning', 'search_memories', 'search_broadcasts'])
        await raw.query(`DELETE FROM ${table}`);
      await raw.destroy();
      t = await startTestApp({ dbPath });
      expect((await answers()).map((items) => items.length)).toEqual([0, 0, 0, 0, 0]);
      await t.close();

      const report = await rebuildIndex(t.config);
      expect(report).toMatchObject({ messages: 4, memories: 1, broadcasts: 1 });
      // A second rebuild starts from an empty index again: no duplicates.
      await rebuildIndex(t.config);

      t = await startTestApp({ dbPath });
      expect(await answers()).toEqual(before);
      await t.close();
    });
  },
);
