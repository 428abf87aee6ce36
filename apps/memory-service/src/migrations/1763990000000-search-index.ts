import { createPostgresSearchSchema, dropPostgresSearchSchema, FTS5_DDL, FTS5_DROP } from '@app/search';
import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/** DESIGN §7: broadcasts, the full-text index (FTS5 on SQLite, tsvector on PostgreSQL), the system-message lookup. */
export class SearchIndex1763990000000 implements MigrationInterface {
  name = 'SearchIndex1763990000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'broadcasts',
        columns: [
          { name: 'id', type: 'varchar', length: '128', isPrimary: true },
          { name: 'seq', type: 'integer' },
          { name: 'sender', type: 'varchar', length: '128' },
          { name: 'content', type: 'text' },
          { name: 'at', type: 'varchar', length: '40' },
        ],
        indices: [new TableIndex({ name: 'ux_broadcasts_seq', columnNames: ['seq'], isUnique: true })],
      }),
    );
    // Recent Messages pins the campaign's first system message: an index seek, not a scan of the log.
    await q.createIndex(
      'messages',
      new TableIndex({ name: 'ix_messages_role', columnNames: ['campaign_id', 'role', 'idx'] }),
    );
    if (q.connection.options.type === 'postgres') {
      await createPostgresSearchSchema(q, q.isTransactionActive);
    } else {
      for (const sql of FTS5_DDL) await q.query(sql);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') await dropPostgresSearchSchema(q);
    else for (const sql of FTS5_DROP) await q.query(sql);
    await q.dropIndex('messages', 'ix_messages_role');
    await q.dropTable('broadcasts');
  }
}
