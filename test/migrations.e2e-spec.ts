import { createTestSchema, testDatabaseUrl } from './support/test-postgres';
import { DataSource } from 'typeorm';
import { createDataSource } from '@app/database';
import { ENTITIES } from '../apps/memory-service/src/core.module';
import { MIGRATIONS } from '../apps/memory-service/src/migrations';
import { TableOwners1764400000000 } from '../apps/memory-service/src/migrations/1764400000000-table-owners';
import { scenario } from './support/scenario';
import { startTestApp, tempDb } from './support/test-app';

// Builds its old database as a SQLite file; on PostgreSQL the same migrations run under the advisory lock (pg specs).
(testDatabaseUrl() ? describe.skip : describe)('schema migrations', () => {
  it('upgrades a database created by the first migration to the latest without losing data', async () => {
    const db = tempDb();
    // A database as the first release created it, with a campaign written through the service of that time.
    const first = createDataSource({
      database: { type: 'sqlite', path: db.path },
      entities: ENTITIES,
      migrations: [MIGRATIONS[0]],
    });
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

/**
 * A fresh database (a temp SQLite file, or a PostgreSQL schema) and data sources on it with a chosen migration list.
 */
async function freshDatabase() {
  const pg = testDatabaseUrl();
  const schema = pg ? await createTestSchema(pg) : null;
  const file = pg ? null : tempDb();
  const open = async (migrations: typeof MIGRATIONS) => {
    const database = schema
      ? { type: 'postgres' as const, url: schema.url }
      : { type: 'sqlite' as const, path: file!.path };
    const ds = createDataSource({ database, entities: ENTITIES, migrations });
    await ds.initialize();
    return ds;
  };
  return { open, cleanup: async () => (schema ? schema.drop() : file!.cleanup()) };
}

describe('table owners migration (memory_checkpoints)', () => {
  const at = MIGRATIONS.indexOf(TableOwners1764400000000);
  const columns = async (ds: DataSource) =>
    (await ds.createQueryRunner().getTable('campaigns'))!.columns.map((c) => c.name).sort();
  const checkpoint = async (ds: DataSource) =>
    (await ds.query(`SELECT processed_version, memory_version FROM memory_checkpoints WHERE campaign_id = 'old'`)).map(
      (r: { processed_version: number | string; memory_version: number | string }) => [
        Number(r.processed_version),
        Number(r.memory_version),
      ],
    );

  it("carries each campaign's checkpoint over, gives it back on down, and keeps it through up, down, up", async () => {
    const db = await freshDatabase();
    try {
      const before = await db.open(MIGRATIONS.slice(0, at));
      await before.runMigrations();
      await before.query(
        `INSERT INTO campaigns (id, name, version, processed_version, memory_version, state, created_at) VALUES ('old', 'Old', 5, 3, 2, '{}', '2026-01-01T00:00:00.000Z')`,
      );
      await before.destroy();

      const ds = await db.open(MIGRATIONS.slice(0, at + 1));
      try {
        await ds.runMigrations();
        expect(await checkpoint(ds)).toEqual([[3, 2]]);
        expect(await columns(ds)).toEqual(['created_at', 'id', 'name', 'state', 'version']);

        await ds.undoLastMigration();
        const [row] = await ds.query(
          `SELECT version, processed_version, memory_version FROM campaigns WHERE id = 'old'`,
        );
        expect([row.version, row.processed_version, row.memory_version].map(Number)).toEqual([5, 3, 2]);
        expect(await ds.createQueryRunner().hasTable('memory_checkpoints')).toBe(false);

        await ds.runMigrations();
        expect(await checkpoint(ds)).toEqual([[3, 2]]);
        const [campaign] = await ds.query(`SELECT name, version FROM campaigns WHERE id = 'old'`);
        expect([campaign.name, Number(campaign.version)]).toEqual(['Old', 5]);
      } finally {
        await ds.destroy();
      }
    } finally {
      await db.cleanup();
    }
  });
});
