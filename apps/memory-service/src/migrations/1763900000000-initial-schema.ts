import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

const text = (name: string, nullable = false) => ({ name, type: 'text', isNullable: nullable });
const str = (name: string, length: number, nullable = false) => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable: nullable,
});
const int = (name: string, dflt?: number) => ({
  name,
  type: 'integer',
  ...(dflt === undefined ? {} : { default: dflt }),
});

/** Core schema (DESIGN §1–3): events, campaign projections, memories, cursors, idempotency. */
export class InitialSchema1763900000000 implements MigrationInterface {
  name = 'InitialSchema1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'events',
        columns: [
          { name: 'position', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          str('stream_id', 160),
          int('stream_version'),
          str('type', 64),
          text('data'),
          text('metadata'),
          str('recorded_at', 32),
        ],
        indices: [
          new TableIndex({
            name: 'ux_events_stream_version',
            columnNames: ['stream_id', 'stream_version'],
            isUnique: true,
          }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'campaigns',
        columns: [
          { ...str('id', 128), isPrimary: true },
          str('name', 200),
          int('version'),
          int('processed_version', 0),
          int('memory_version', 0),
          text('state'),
          str('created_at', 32),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'messages',
        columns: [
          { ...str('campaign_id', 128), isPrimary: true },
          { ...int('idx'), isPrimary: true },
          str('role', 16),
          str('speaker', 200, true),
          text('content'),
          str('location_id', 128, true),
          text('npc_ids'),
          str('at', 40),
          int('round'),
          str('visibility', 16),
          text('audience'),
          text('tool_calls'),
          str('tool_call_id', 128, true),
          text('reasoning', true),
          int('version'),
        ],
        indices: [
          new TableIndex({ name: 'ix_messages_location', columnNames: ['campaign_id', 'location_id', 'idx'] }),
          new TableIndex({ name: 'ix_messages_round', columnNames: ['campaign_id', 'round', 'idx'] }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'tool_calls',
        columns: [
          { ...str('campaign_id', 128), isPrimary: true },
          { ...str('call_id', 128), isPrimary: true },
          str('name', 128),
          int('message_index'),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'idempotency_keys',
        columns: [
          { ...str('scope', 160), isPrimary: true },
          { ...str('key', 200), isPrimary: true },
          str('request_hash', 64),
          int('status'),
          text('body'),
          str('created_at', 32),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'memories',
        columns: [
          { ...str('id', 300), isPrimary: true },
          str('campaign_id', 128),
          str('scope', 16),
          str('subject_id', 128),
          text('summary'),
          text('tags'),
          str('location_id', 128, true),
          text('npc_ids'),
          str('quest_id', 128, true),
          str('encounter_id', 128, true),
          int('since_message_index'),
          int('through_message_index'),
          str('since_timestamp', 40),
          str('created_at', 32),
          int('trigger_version'),
          int('memory_version'),
          text('input_indexes'),
        ],
        indices: [
          new TableIndex({
            name: 'ux_memories_trigger',
            columnNames: ['campaign_id', 'scope', 'subject_id', 'trigger_version'],
            isUnique: true,
          }),
          new TableIndex({
            name: 'ix_memories_scope',
            columnNames: ['campaign_id', 'scope', 'subject_id', 'memory_version'],
          }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'memory_cursors',
        columns: [
          { ...str('campaign_id', 128), isPrimary: true },
          { ...str('scope', 16), isPrimary: true },
          { ...str('subject_id', 128), isPrimary: true },
          int('value'),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['memory_cursors', 'memories', 'idempotency_keys', 'tool_calls', 'messages', 'campaigns', 'events'])
      await q.dropTable(t);
  }
}
