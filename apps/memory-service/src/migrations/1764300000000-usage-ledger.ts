import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

const str = (name: string, length: number, nullable = false) => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable: nullable,
});
const count = (name: string) => ({ name, type: 'bigint', default: 0 });

/** Usage ledger (DESIGN §12): one row per model call attempt, owned by libs/summarizer. */
export class UsageLedger1764300000000 implements MigrationInterface {
  name = 'UsageLedger1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'model_calls',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          str('campaign_id', 128),
          str('scope', 16),
          str('subject_id', 300),
          { name: 'attempt', type: 'integer' },
          str('model', 200),
          str('outcome', 16),
          count('input_tokens'),
          count('output_tokens'),
          count('cache_read_tokens'),
          count('cache_write_tokens'),
          { name: 'latency_ms', type: 'integer', default: 0 },
          { name: 'requests', type: 'integer', default: 1 },
          { name: 'trigger_version', type: 'bigint' },
          { name: 'memory_version', type: 'bigint', isNullable: true },
          str('memory_id', 500, true),
          str('called_at', 40),
        ],
        indices: [
          new TableIndex({
            name: 'ix_model_calls_campaign',
            columnNames: ['campaign_id', 'scope', 'model', 'outcome'],
          }),
          new TableIndex({ name: 'ix_model_calls_memory', columnNames: ['campaign_id', 'memory_id'] }),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('model_calls');
  }
}
