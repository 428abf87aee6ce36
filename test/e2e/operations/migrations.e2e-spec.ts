import { createTestSchema, testDatabaseUrl } from '../../support/test-postgres';
import { DataSource } from 'typeorm';
import { createDataSource } from '@app/database';
import { ENTITIES } from '../../../apps/memory-service/src/core.module';
import { MIGRATIONS } from '../../../apps/memory-service/src/migrations';
import { TableOwners1764400000000 } from '../../../apps/memory-service/src/migrations/1764400000000-table-owners';
import { Timelines1764500000000 } from '../../../apps/memory-service/src/migrations/1764500000000-timelines';
import { scenario } from '../../support/scenario';
import { startTestApp, tempDb } from '../../support/test-app';

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

describe('timelines migration (§10 schema)', () => {
  const at = MIGRATIONS.indexOf(Timelines1764500000000);
  const MEMORY_ID = 'old:3:location:here';
  const recorded = JSON.stringify({ memoryId: MEMORY_ID, triggerVersion: 3, cursor: 1, summary: 'They met.' });
  const num = (v: unknown) => (v === null ? null : Number(v));

  /** What must survive up, down and up again: the campaign, its message, memory, term and "Previously". */
  const kept = async (ds: DataSource) => {
    const [c] = await ds.query(`SELECT name, version FROM campaigns WHERE id = 'old'`);
    const memories = await ds.query(`SELECT id, summary, memory_version FROM memories WHERE campaign_id = 'old'`);
    const terms = await ds.query(`SELECT term, memory_version FROM glossary_terms WHERE campaign_id = 'old'`);
    const summaries = await ds.query(`SELECT summary FROM rolling_summaries WHERE campaign_id = 'old'`);
    const messages = await ds.query(`SELECT content FROM messages WHERE campaign_id = 'old'`);
    return {
      campaign: [c.name, num(c.version)],
      memories: memories.map((r: Record<string, unknown>) => [r.id, r.summary, num(r.memory_version)]),
      terms: terms.map((r: Record<string, unknown>) => [r.term, num(r.memory_version)]),
      summaries: summaries.map((r: Record<string, unknown>) => r.summary),
      messages: messages.map((r: Record<string, unknown>) => r.content),
    };
  };

  /** The backfills: trigger versions, the campaign's timeline and message count, memory columns and history. */
  const backfilled = async (ds: DataSource) => {
    const events = await ds.query(`SELECT stream_id, trigger_version FROM events ORDER BY position`);
    const [c] = await ds.query(`SELECT timeline, message_count, parent_id FROM campaigns WHERE id = 'old'`);
    const [mem] = await ds.query(
      `SELECT revision, origin, status, changed_version, locked, cursor FROM memories WHERE id = '${MEMORY_ID}'`,
    );
    const history = await ds.query(
      `SELECT seq, valid_from, reason, summary, memory_version, search_seq FROM memory_history ` +
        `WHERE campaign_id = 'old'`,
    );
    const checkpoints = await ds.query(`SELECT campaign_id, timeline FROM memory_checkpoints ORDER BY campaign_id`);
    return {
      events: events.map((r: Record<string, unknown>) => [r.stream_id, num(r.trigger_version)]),
      campaign: [num(c.timeline), num(c.message_count), c.parent_id],
      memory: [num(mem.revision), mem.origin, mem.status, num(mem.changed_version), Boolean(mem.locked)].concat([
        num(mem.cursor),
      ]),
      history: history.map((r: Record<string, unknown>) =>
        [r.seq, r.valid_from, r.reason, r.summary, r.memory_version, r.search_seq].map((v) =>
          typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v,
        ),
      ),
      checkpoints: checkpoints.map((r: Record<string, unknown>) => [r.campaign_id, num(r.timeline)]),
    };
  };

  it('backfills trigger versions, memory columns and history, and keeps the data through up, down, up', async () => {
    const db = await freshDatabase();
    try {
      const before = await db.open(MIGRATIONS.slice(0, at));
      await before.runMigrations();
      const T = `'2026-01-01T00:00:00.000Z'`;
      await before.query(
        `INSERT INTO events (stream_id, stream_version, type, data, metadata, recorded_at) VALUES ` +
          `('campaign-old', 1, 'CampaignCreated', '{}', '{}', ${T}), ` +
          `('memory-old', 1, 'MemoryRecorded', '${recorded}', '{}', ${T}), ` +
          `('memory-old', 2, 'GlossaryTermAdded', '{"term":"Ember","triggerVersion":2}', '{}', ${T})`,
      );
      await before.query(
        `INSERT INTO campaigns (id, name, version, state, created_at) VALUES ('old', 'Old', 5, '{}', ${T}), ` +
          `('lone', 'Lone', 1, '{}', ${T})`,
      );
      await before.query(
        `INSERT INTO memory_checkpoints (campaign_id, processed_version, memory_version) VALUES ('old', 5, 2)`,
      );
      await before.query(
        `INSERT INTO messages (campaign_id, idx, role, speaker, content, location_id, npc_ids, at, round, ` +
          `visibility, audience, tool_calls, tool_call_id, reasoning, version) VALUES ` +
          `('old', 0, 'dm', NULL, 'Hello there.', 'here', '[]', ${T}, 1, 'public', '[]', '[]', NULL, NULL, 2), ` +
          `('old', 1, 'dm', NULL, 'The Ember glows.', 'here', '[]', ${T}, 1, 'public', '[]', '[]', NULL, NULL, 3)`,
      );
      await before.query(
        `INSERT INTO memories (id, campaign_id, scope, subject_id, summary, tags, location_id, npc_ids, quest_id, ` +
          `encounter_id, since_message_index, through_message_index, since_timestamp, created_at, trigger_version, ` +
          `memory_version, input_indexes) VALUES ('${MEMORY_ID}', 'old', 'location', 'here', 'They met.', '[]', ` +
          `'here', '[]', NULL, NULL, 0, 1, ${T}, ${T}, 3, 1, '[0,1]')`,
      );
      await before.query(
        `INSERT INTO glossary_terms (campaign_id, term_key, term, definition, coined_message_index, ` +
          `trigger_version, memory_version, created_at) VALUES ('old', 'ember', 'Ember', 'A stone.', 1, 2, 2, ${T})`,
      );
      await before.query(
        `INSERT INTO rolling_summaries (campaign_id, viewer_key, memory_version, summary, since_message_index, ` +
          `through_message_index, trigger_version, created_at, input_indexes) VALUES ` +
          `('old', '*', 2, 'Previously: a meeting.', 0, 1, 4, ${T}, '[0,1]')`,
      );
      const original = await kept(before);
      await before.destroy();

      const ds = await db.open(MIGRATIONS.slice(0, at + 1));
      try {
        await ds.runMigrations();
        expect(await kept(ds)).toEqual(original);
        expect(await backfilled(ds)).toEqual({
          events: [
            ['campaign-old', null],
            ['memory-old', 3],
            ['memory-old', 2],
          ],
          campaign: [1, 2, null],
          memory: [1, 'model', 'active', 3, false, 1],
          history: [[1, 3, 'recorded', 'They met.', 1, 1]],
          checkpoints: [
            ['lone', 1],
            ['old', 1],
          ],
        });
        // The new keys: a fork's copy of the memory (same id, other campaign) and a second coining of a term fit.
        await ds.query(
          `INSERT INTO memories (id, campaign_id, scope, subject_id, summary, tags, location_id, npc_ids, ` +
            `quest_id, encounter_id, since_message_index, through_message_index, since_timestamp, created_at, ` +
            `trigger_version, memory_version, input_indexes, changed_version) SELECT id, 'fork', scope, ` +
            `subject_id, summary, tags, location_id, npc_ids, quest_id, encounter_id, since_message_index, ` +
            `through_message_index, since_timestamp, created_at, trigger_version, memory_version, input_indexes, ` +
            `changed_version FROM memories WHERE campaign_id = 'old'`,
        );
        await ds.query(`DELETE FROM memories WHERE campaign_id = 'fork'`);

        await ds.undoLastMigration();
        expect(await kept(ds)).toEqual(original);
        expect(await ds.createQueryRunner().hasTable('memory_history')).toBe(false);
        expect(await ds.createQueryRunner().hasColumn('events', 'trigger_version')).toBe(false);

        await ds.runMigrations();
        expect(await kept(ds)).toEqual(original);
        expect((await backfilled(ds)).history).toEqual([[1, 3, 'recorded', 'They met.', 1, 1]]);
      } finally {
        await ds.destroy();
      }
    } finally {
      await db.cleanup();
    }
  });
});
