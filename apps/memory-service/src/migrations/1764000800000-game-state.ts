import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

const text = (name: string, nullable = false) => ({ name, type: 'text', isNullable: nullable });
const str = (name: string, length: number, nullable = false) => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable: nullable,
});

/** Game-state cache (DESIGN §5): snapshots per account and tool, per-campaign tool rules, accounts. */
export class GameState1764000800000 implements MigrationInterface {
  name = 'GameState1764000800000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'game_state_snapshots',
        columns: [
          { ...str('campaign_id', 128), isPrimary: true },
          { ...str('account_id', 128), isPrimary: true },
          { ...str('tool', 128), isPrimary: true },
          text('content'),
          { name: 'bytes', type: 'integer' },
          { name: 'tick', type: 'bigint', isNullable: true },
          str('captured_at', 40),
          { name: 'stale', type: 'integer', default: 0 },
          text('field_ticks'),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'snapshot_tools',
        columns: [
          { ...str('campaign_id', 128), isPrimary: true },
          { ...str('tool', 128), isPrimary: true },
          str('title', 200, true),
          text('fields', true),
          text('invalidated_by', true),
          { name: 'max_age_ticks', type: 'bigint', isNullable: true },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'accounts',
        columns: [
          { ...str('campaign_id', 128), isPrimary: true },
          { ...str('account_id', 128), isPrimary: true },
          str('agent_id', 128, true),
          str('created_at', 40),
        ],
        indices: [
          new TableIndex({ name: 'ux_accounts_agent', columnNames: ['campaign_id', 'agent_id'], isUnique: true }),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['accounts', 'snapshot_tools', 'game_state_snapshots']) await q.dropTable(t);
  }
}
