import { FTS5_LEAN_TEXT_DDL } from '@app/search';
import { MigrationInterface, QueryRunner } from 'typeorm';

/** The message text indexes of the FTS5 adapter, rebuilt by this migration (fts5.schema.ts). */
const TEXT_TABLES = ['search_messages', 'search_reasoning'] as const;
const COLUMNS = { search_messages: 'content', search_reasoning: 'reasoning' } as const;

/**
 * Less written per message (issue 33, docs/performance.md): the system-message lookup keeps only system messages
 * (a partial index instead of one entry per message in ix_messages_role), and on SQLite the message and reasoning
 * full-text tables drop their per-row token counts (`columnsize=0`: the campaign's own BM25 ranks them, and
 * snippet() counts what it needs from the text). The rows are copied into the new tables; no answer changes.
 */
export class LeanMessageWrites1764800000000 implements MigrationInterface {
  name = 'LeanMessageWrites1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX ix_messages_role');
    await q.query(`CREATE INDEX ix_messages_system ON messages (campaign_id, idx) WHERE role = 'system'`);
    if (q.connection.options.type !== 'postgres')
      for (const table of TEXT_TABLES) await rebuildText(q, table, FTS5_LEAN_TEXT_DDL[table]);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres')
      for (const table of TEXT_TABLES) await rebuildText(q, table, FTS5_LEAN_TEXT_DDL[table].replace(LEAN, ')'));
    await q.query('DROP INDEX ix_messages_system');
    await q.query('CREATE INDEX ix_messages_role ON messages (campaign_id, role, idx)');
  }
}

const LEAN = ', columnsize=0)';

/** Re-creates an FTS5 table from `ddl` (which names `<table>_next`) with the rows it held. */
async function rebuildText(q: QueryRunner, table: (typeof TEXT_TABLES)[number], ddl: string): Promise<void> {
  const columns = `rowid, ${COLUMNS[table]}, role, location_id, at, round`;
  await q.query(ddl);
  await q.query(`INSERT INTO ${table}_next (${columns}) SELECT ${columns} FROM ${table} ORDER BY rowid`);
  await q.query(`DROP TABLE ${table}`);
  await q.query(`ALTER TABLE ${table}_next RENAME TO ${table}`);
}
