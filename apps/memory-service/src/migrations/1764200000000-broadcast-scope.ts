import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Broadcasts are visible to keys with the same campaign scope as the key that posted them (DESIGN §8). Rows
 * posted before carry `*`: the scope of an unscoped key, and of every caller when authentication is off.
 */
export class BroadcastScope1764200000000 implements MigrationInterface {
  name = 'BroadcastScope1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE broadcasts ADD COLUMN key_scope text NOT NULL DEFAULT '*'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE broadcasts DROP COLUMN key_scope');
  }
}
