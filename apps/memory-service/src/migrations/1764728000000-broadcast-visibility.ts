import { MigrationInterface, QueryRunner } from 'typeorm';

/** `visibility: gm` broadcasts (DESIGN §8): never read by a viewer-bound key. Rows posted before are public. */
export class BroadcastVisibility1764728000000 implements MigrationInterface {
  name = 'BroadcastVisibility1764728000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE broadcasts ADD COLUMN visibility varchar(8) NOT NULL DEFAULT 'public'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE broadcasts DROP COLUMN visibility');
  }
}
