import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One owner per table (issue 19): the memory worker's checkpoint and the memory stream's version move off
 * `campaigns` (campaign's) into `memory_checkpoints` (memory's), with every campaign's values carried over.
 * Both dialects: SQLite ≥ 3.35 has DROP COLUMN (better-sqlite3 bundles a newer one).
 */
export class TableOwners1764400000000 implements MigrationInterface {
  name = 'TableOwners1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      'CREATE TABLE memory_checkpoints (campaign_id varchar(128) PRIMARY KEY NOT NULL, ' +
        'processed_version integer NOT NULL DEFAULT 0, memory_version integer NOT NULL DEFAULT 0)',
    );
    await q.query(
      'INSERT INTO memory_checkpoints (campaign_id, processed_version, memory_version) SELECT id, processed_version, memory_version FROM campaigns',
    );
    // The catch-up poll's partial index reads the column: it goes first (SQLite refuses to drop an indexed column).
    await q.query('DROP INDEX ix_campaigns_behind');
    await q.query('ALTER TABLE campaigns DROP COLUMN processed_version');
    await q.query('ALTER TABLE campaigns DROP COLUMN memory_version');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE campaigns ADD COLUMN processed_version integer NOT NULL DEFAULT 0');
    await q.query('ALTER TABLE campaigns ADD COLUMN memory_version integer NOT NULL DEFAULT 0');
    const of = (column: string) =>
      `COALESCE((SELECT k.${column} FROM memory_checkpoints k WHERE k.campaign_id = campaigns.id), 0)`;
    await q.query(
      `UPDATE campaigns SET processed_version = ${of('processed_version')}, memory_version = ${of('memory_version')}`,
    );
    await q.query('CREATE INDEX ix_campaigns_behind ON campaigns (id) WHERE processed_version < version');
    await q.query('DROP TABLE memory_checkpoints');
  }
}
