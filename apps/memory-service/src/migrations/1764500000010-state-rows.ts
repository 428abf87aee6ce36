import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Lane 1's part of the timelines schema (docs/timelines-plan.md §1.3), written so that it is a no-op where
 * `1764500000000-timelines` already made it: the versioned state rows, the campaign's timeline and message
 * count columns, the rewind list a rebuild takes the timeline from, and the index `messageCount(V)` seeks.
 */
export class StateRows1764500000010 implements MigrationInterface {
  name = 'StateRows1764500000010';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE IF NOT EXISTS "campaign_state_rows" ("campaign_id" varchar(128) NOT NULL, ` +
        `"kind" varchar(16) NOT NULL, "key" varchar(300) NOT NULL, "valid_from" integer NOT NULL, ` +
        `"valid_to" integer NULL, "doc" text NOT NULL, PRIMARY KEY ("campaign_id", "kind", "key", "valid_from"))`,
    );
    await q.query(
      `CREATE INDEX IF NOT EXISTS "ix_state_rows_current" ON "campaign_state_rows" ("campaign_id", "kind", "key") ` +
        `WHERE "valid_to" IS NULL`,
    );
    await q.query(
      `CREATE TABLE IF NOT EXISTS "campaign_timelines" ("campaign_id" varchar(128) NOT NULL, ` +
        `"timeline" integer NOT NULL, "from_version" integer NOT NULL, "to_version" integer NOT NULL, ` +
        `"memory_version" integer NOT NULL, "kept_as" varchar(128) NULL, "rewound_at" varchar(40) NOT NULL, ` +
        `PRIMARY KEY ("campaign_id", "timeline"))`,
    );
    await q.query(`CREATE INDEX IF NOT EXISTS "ix_messages_version" ON "messages" ("campaign_id", "version")`);
    // Plain ADD COLUMN on both dialects (TypeORM's addColumn rebuilds the table on SQLite).
    for (const [name, initial] of [
      ['timeline', 1],
      ['message_count', 0],
    ] as const)
      if (!(await q.hasColumn('campaigns', name)))
        await q.query(`ALTER TABLE "campaigns" ADD COLUMN "${name}" integer NOT NULL DEFAULT ${initial}`);
  }

  async down(q: QueryRunner): Promise<void> {
    // Columns stay (`1764500000000-timelines` drops them when it is there); the tables only this one made go.
    await q.query('DROP INDEX IF EXISTS "ix_messages_version"');
    await q.query('DROP TABLE IF EXISTS "campaign_timelines"');
    await q.query('DROP TABLE IF EXISTS "campaign_state_rows"');
  }
}
