import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Several replicas (DESIGN §9): the leases that give one replica a campaign's memory work, and a
 * partial index so that the catch-up poll finds the campaigns behind without scanning the others.
 */
export class ReplicaLeases1764000000000 implements MigrationInterface {
  name = 'ReplicaLeases1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createIndex(
      'campaigns',
      new TableIndex({ name: 'ix_campaigns_behind', columnNames: ['id'], where: 'processed_version < version' }),
    );
    // SQLite runs in one process and needs no leases.
    if (q.connection.options.type !== 'postgres') return;
    await q.createTable(
      new Table({
        name: 'leases',
        columns: [
          { name: 'campaign_id', type: 'varchar', length: '128', isPrimary: true },
          { name: 'owner', type: 'varchar', length: '128', isNullable: true },
          { name: 'epoch', type: 'integer', default: 0 },
          { name: 'expires_at', type: 'timestamptz' },
          { name: 'acquired_at', type: 'timestamptz' },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') await q.dropTable('leases');
    await q.dropIndex('campaigns', 'ix_campaigns_behind');
  }
}
