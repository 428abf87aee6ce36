import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

const text = (name: string, nullable = false) => ({ name, type: 'text', isNullable: nullable });
const str = (name: string, length: number, nullable = false) => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable: nullable,
});
const int = (name: string, nullable = false) => ({ name, type: 'integer', isNullable: nullable });
const key = <C extends object>(c: C) => ({ ...c, isPrimary: true });

/** Layered context (DESIGN §8): who witnessed what, glossary, rolling summaries. */
export class LayeredContext1763900800000 implements MigrationInterface {
  name = 'LayeredContext1763900800000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'message_witnesses',
        columns: [key(str('campaign_id', 128)), key(str('viewer_id', 140)), key(int('idx'))],
      }),
    );
    await q.createTable(
      new Table({
        name: 'memory_witnesses',
        columns: [key(str('campaign_id', 128)), key(str('viewer_id', 140)), key(str('memory_id', 300))],
      }),
    );
    await q.createTable(
      new Table({
        name: 'glossary_terms',
        columns: [
          key(str('campaign_id', 128)),
          key(str('term_key', 200)),
          str('term', 200),
          text('definition'),
          int('coined_message_index'),
          int('trigger_version'),
          int('memory_version'),
          str('created_at', 32),
        ],
        indices: [new TableIndex({ name: 'ix_glossary_coined', columnNames: ['campaign_id', 'coined_message_index'] })],
      }),
    );
    await q.createTable(
      new Table({
        name: 'rolling_summaries',
        columns: [
          key(str('campaign_id', 128)),
          key(str('viewer_key', 140)),
          key(int('memory_version')),
          text('summary'),
          int('since_message_index'),
          int('through_message_index'),
          int('trigger_version'),
          str('created_at', 32),
          text('input_indexes'),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['rolling_summaries', 'glossary_terms', 'memory_witnesses', 'message_witnesses'])
      await q.dropTable(t);
  }
}
