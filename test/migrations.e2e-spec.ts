import { testDatabaseUrl } from './support/test-postgres';
import { DataSource } from 'typeorm';
import { createDataSource } from '@app/database';
import { ENTITIES } from '../apps/memory-service/src/core.module';
import { MIGRATIONS } from '../apps/memory-service/src/migrations';
import { scenario } from './support/scenario';
import { startTestApp, tempDb } from './support/test-app';

// Builds its old database as a SQLite file; on PostgreSQL the same migrations run under the advisory lock (pg specs).
(testDatabaseUrl() ? describe.skip : describe)('schema migrations', () => {
  it('upgrades a database created by the first migration to the latest without losing data', async () => {
    const db = tempDb();
    // A database as the first release created it, with a campaign written through the service of that time.
    const first = createDataSource({ database: { type: 'sqlite', path: db.path }, entities: ENTITIES, migrations: [MIGRATIONS[0]] });
    await first.initialize();
    await first.runMigrations();
    await first.query(
      `INSERT INTO events (stream_id, stream_version, type, data, metadata, recorded_at) VALUES ('campaign-old', 1, 'CampaignCreated', '{"campaignId":"old","name":"Old","settings":{"perRoleMemory":false}}', '{}', '2026-01-01T00:00:00.000Z')`,
    );
    await first.query(
      `INSERT INTO campaigns (id, name, version, processed_version, memory_version, state, created_at) VALUES ('old', 'Old', 1, 1, 0, '{"id":"old","name":"Old","version":1,"createdAt":"2026-01-01T00:00:00.000Z","currentLocationId":null,"currentActId":null,"round":1,"settings":{"perRoleMemory":false},"locations":{},"npcs":{},"quests":{},"messageCount":0}', '2026-01-01T00:00:00.000Z')`,
    );
    await first.destroy();

    // The current service boots on it: every later migration runs, and the old campaign keeps working.
    const t = await startTestApp({ dbPath: db.path });
    try {
      const executed = await t.app.get(DataSource).query('SELECT name FROM migrations ORDER BY id');
      expect(executed.map((r: { name: string }) => r.name)).toEqual(MIGRATIONS.map((m) => new m().name));
      const s = scenario(t, 'old');
      expect((await s.campaign()).name).toBe('Old');
      await s.location('here', 'Here');
      await s.move('here');
      await s.say({ role: 'dm', content: 'Still here after the upgrade.' });
      const events = await t.http('GET', '/v1/campaigns/old/events');
      expect(events.body.items.map((e: { version: number }) => e.version)).toEqual([1, 2, 3, 4]);
    } finally {
      await t.close();
      db.cleanup();
    }
  });
});
