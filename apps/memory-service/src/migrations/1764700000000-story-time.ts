import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * §8 story time: each message keeps the campaign's story time when it was recorded (`story_time`, ≤ 80 characters)
 * and whether the server filled its `at` (`at_filled`: such an `at` is never printed). Messages recorded before
 * this migration had no story time, and their `at` is read as the client's, as it always was.
 */
export class StoryTime1764700000000 implements MigrationInterface {
  name = 'StoryTime1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE messages ADD COLUMN story_time varchar(80) NULL');
    await q.query('ALTER TABLE messages ADD COLUMN at_filled integer NOT NULL DEFAULT 0');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE messages DROP COLUMN at_filled');
    await q.query('ALTER TABLE messages DROP COLUMN story_time');
  }
}
