import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `ix_memories_version (campaign_id, memory_version)`: a memory listing without a scope (`GET …/memories`, current or
 * as of V) walks the campaign's memories newest first from the horizon's memory version and stops at `limit`. Without
 * it both dialects sorted every memory of the campaign for each page (SQLite: `USE TEMP B-TREE FOR ORDER BY`). The
 * same statement on both dialects.
 */
export class MemoriesByVersion1764600000000 implements MigrationInterface {
  name = 'MemoriesByVersion1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX ix_memories_version ON memories (campaign_id, memory_version)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX ix_memories_version');
  }
}
