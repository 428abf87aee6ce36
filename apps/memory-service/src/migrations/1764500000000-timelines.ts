import { MigrationInterface, QueryRunner } from 'typeorm';

/** The columns `memories` had before this migration, in table order (the rebuild copies them as they are). */
const MEMORY_COLUMNS =
  'id, campaign_id, scope, subject_id, summary, tags, location_id, npc_ids, quest_id, encounter_id, ' +
  'since_message_index, through_message_index, since_timestamp, created_at, trigger_version, memory_version, ' +
  'input_indexes';
const MEMORY_DDL =
  'id varchar(300) NOT NULL, campaign_id varchar(128) NOT NULL, scope varchar(16) NOT NULL, ' +
  'subject_id varchar(128) NOT NULL, summary text NOT NULL, tags text NOT NULL, location_id varchar(128), ' +
  'npc_ids text NOT NULL, quest_id varchar(128), encounter_id varchar(128), since_message_index integer NOT NULL, ' +
  'through_message_index integer NOT NULL, since_timestamp varchar(40) NOT NULL, created_at varchar(32) NOT NULL, ' +
  'trigger_version integer NOT NULL, memory_version integer NOT NULL, input_indexes text NOT NULL';
const GLOSSARY_COLUMNS =
  'campaign_id, term_key, term, definition, coined_message_index, trigger_version, memory_version, created_at';
const GLOSSARY_DDL =
  'campaign_id varchar(128) NOT NULL, term_key varchar(200) NOT NULL, term varchar(200) NOT NULL, ' +
  'definition text NOT NULL, coined_message_index integer NOT NULL, trigger_version integer NOT NULL, ' +
  'memory_version integer NOT NULL, created_at varchar(32) NOT NULL';

/** A JSON field of `events.data` as an integer, per dialect. */
const jsonInt = (pg: boolean, expr: string, field: string) =>
  pg ? `(${expr}::jsonb->>'${field}')::int` : `json_extract(${expr}, '$.${field}')`;

/**
 * Timelines (DESIGN §10, docs/history/timelines-plan.md §1.3): the schema of every lane at once — the trigger version on
 * memory events, the campaign's timeline/message count/parent, versioned state rows, rewinds, retraction columns,
 * memory revisions with their history, and primary keys that let a fork keep the parent's memory ids
 * (`memories` and PostgreSQL's `search_memories` per campaign, `glossary_terms` per coining). SQLite changes a
 * primary key by rebuilding the table; PostgreSQL by swapping the constraint. `campaign_state_rows` is filled at
 * boot by the campaign projector (it needs the fold, which a migration must not import).
 */
export class Timelines1764500000000 implements MigrationInterface {
  name = 'Timelines1764500000000';

  async up(q: QueryRunner): Promise<void> {
    const pg = q.connection.options.type === 'postgres';
    const bool = pg ? 'boolean NOT NULL DEFAULT false' : 'boolean NOT NULL DEFAULT 0';

    // events: the memory event's trigger, so "the memory stream as of game version V" is one index seek.
    await q.query('ALTER TABLE events ADD COLUMN trigger_version integer NULL');
    await q.query(
      `UPDATE events SET trigger_version = ${jsonInt(pg, 'data', 'triggerVersion')} WHERE stream_id LIKE 'memory-%'`,
    );
    await q.query(
      'CREATE INDEX ix_events_trigger ON events (stream_id, trigger_version) WHERE trigger_version IS NOT NULL',
    );

    // campaigns: timeline (+1 per rewind), message count (as-of reads and flat writes), the fork's parent.
    await q.query('ALTER TABLE campaigns ADD COLUMN timeline integer NOT NULL DEFAULT 1');
    await q.query('ALTER TABLE campaigns ADD COLUMN message_count integer NOT NULL DEFAULT 0');
    await q.query('ALTER TABLE campaigns ADD COLUMN parent_id varchar(128) NULL');
    await q.query('ALTER TABLE campaigns ADD COLUMN parent_version integer NULL');
    await q.query(
      'UPDATE campaigns SET message_count = COALESCE((SELECT MAX(m.idx) + 1 FROM messages m ' +
        'WHERE m.campaign_id = campaigns.id), 0)',
    );
    await q.query('CREATE INDEX ix_campaigns_parent ON campaigns (parent_id)');

    await q.query(
      'CREATE TABLE campaign_state_rows (campaign_id varchar(128) NOT NULL, kind varchar(16) NOT NULL, ' +
        'key varchar(300) NOT NULL, valid_from integer NOT NULL, valid_to integer NULL, doc text NOT NULL, ' +
        'PRIMARY KEY (campaign_id, kind, key, valid_from))',
    );
    await q.query(
      'CREATE INDEX ix_state_rows_current ON campaign_state_rows (campaign_id, kind, key) WHERE valid_to IS NULL',
    );
    await q.query(
      'CREATE TABLE campaign_timelines (campaign_id varchar(128) NOT NULL, timeline integer NOT NULL, ' +
        'from_version integer NOT NULL, to_version integer NOT NULL, memory_version integer NOT NULL, ' +
        'kept_as varchar(128) NULL, rewound_at varchar(32) NOT NULL, PRIMARY KEY (campaign_id, timeline))',
    );

    // messages: retraction, and the message count at a version (one seek).
    await q.query('ALTER TABLE messages ADD COLUMN retracted_version integer NULL');
    await q.query('ALTER TABLE messages ADD COLUMN retract_reason text NULL');
    await q.query('CREATE INDEX ix_messages_version ON messages (campaign_id, version)');
    await q.query(
      'CREATE INDEX ix_messages_retracted ON messages (campaign_id, retracted_version) ' +
        'WHERE retracted_version IS NOT NULL',
    );

    // memories: keyed per campaign (a fork serves the parent's ids), with revision, status and history.
    const memoryExtra =
      `revision integer NOT NULL DEFAULT 1, origin varchar(8) NOT NULL DEFAULT 'model', ` +
      `status varchar(12) NOT NULL DEFAULT 'active', changed_version integer NOT NULL, locked ${bool}, ` +
      'cursor integer NULL';
    const cursorOf =
      `(SELECT ${jsonInt(pg, 'e.data', 'cursor')} FROM events e ` +
      `WHERE e.stream_id = 'memory-' || memories.campaign_id AND e.stream_version = memories.memory_version)`;
    if (pg) {
      for (const c of memoryExtra.split(', ').map((d) => d.replace(' NOT NULL', ''))) {
        await q.query(`ALTER TABLE memories ADD COLUMN ${c}`);
      }
      await q.query(`UPDATE memories SET changed_version = trigger_version, cursor = ${cursorOf}`);
      await q.query('ALTER TABLE memories ALTER COLUMN revision SET NOT NULL');
      await q.query('ALTER TABLE memories ALTER COLUMN origin SET NOT NULL');
      await q.query('ALTER TABLE memories ALTER COLUMN status SET NOT NULL');
      await q.query('ALTER TABLE memories ALTER COLUMN changed_version SET NOT NULL');
      await q.query('ALTER TABLE memories ALTER COLUMN locked SET NOT NULL');
      await swapPrimaryKey(q, 'memories', 'campaign_id, id');
    } else {
      await q.query(`CREATE TABLE memories_new (${MEMORY_DDL}, ${memoryExtra}, PRIMARY KEY (campaign_id, id))`);
      await q.query(
        `INSERT INTO memories_new (${MEMORY_COLUMNS}, changed_version, cursor) ` +
          `SELECT ${MEMORY_COLUMNS}, trigger_version, ${cursorOf} FROM memories`,
      );
      await q.query('DROP TABLE memories');
      await q.query('ALTER TABLE memories_new RENAME TO memories');
      await createMemoryIndexes(q);
    }
    await q.query('CREATE INDEX ix_memories_through ON memories (campaign_id, through_message_index)');
    await q.query(`CREATE INDEX ix_memories_withheld ON memories (campaign_id) WHERE status = 'withheld'`);

    await q.query(
      'CREATE TABLE memory_history (campaign_id varchar(128) NOT NULL, memory_id varchar(300) NOT NULL, ' +
        'seq integer NOT NULL, valid_from integer NOT NULL, revision integer NOT NULL, status varchar(12) NOT NULL, ' +
        'reason varchar(12) NOT NULL, origin varchar(8) NOT NULL, summary text NOT NULL, input_indexes text NOT NULL, ' +
        'memory_version integer NULL, search_seq integer NOT NULL, at varchar(32) NOT NULL, ' +
        'PRIMARY KEY (campaign_id, memory_id, seq))',
    );
    await q.query('CREATE INDEX ix_memory_history_at ON memory_history (campaign_id, memory_id, valid_from, seq)');
    await q.query(
      'INSERT INTO memory_history (campaign_id, memory_id, seq, valid_from, revision, status, reason, origin, ' +
        'summary, input_indexes, memory_version, search_seq, at) ' +
        `SELECT campaign_id, id, 1, trigger_version, 1, 'active', 'recorded', 'model', summary, input_indexes, ` +
        'memory_version, memory_version, created_at FROM memories',
    );

    // glossary_terms: one row per coining (a withdrawn term may be coined again).
    if (pg) {
      await q.query('ALTER TABLE glossary_terms ADD COLUMN withheld_version integer NULL');
      await q.query('ALTER TABLE glossary_terms ADD COLUMN withdrawn_version integer NULL');
      await swapPrimaryKey(q, 'glossary_terms', 'campaign_id, term_key, memory_version');
    } else {
      await q.query(
        `CREATE TABLE glossary_terms_new (${GLOSSARY_DDL}, withheld_version integer NULL, ` +
          'withdrawn_version integer NULL, PRIMARY KEY (campaign_id, term_key, memory_version))',
      );
      await q.query(
        `INSERT INTO glossary_terms_new (${GLOSSARY_COLUMNS}) SELECT ${GLOSSARY_COLUMNS} FROM glossary_terms`,
      );
      await q.query('DROP TABLE glossary_terms');
      await q.query('ALTER TABLE glossary_terms_new RENAME TO glossary_terms');
      await q.query('CREATE INDEX ix_glossary_coined ON glossary_terms (campaign_id, coined_message_index)');
    }

    await q.query('ALTER TABLE rolling_summaries ADD COLUMN withheld_version integer NULL');

    // The checkpoint is memory's own fence: it carries the timeline, and exists from the campaign's creation on.
    await q.query('ALTER TABLE memory_checkpoints ADD COLUMN timeline integer NOT NULL DEFAULT 1');
    await q.query(
      'INSERT INTO memory_checkpoints (campaign_id, processed_version, memory_version, timeline) ' +
        'SELECT c.id, 0, 0, 1 FROM campaigns c ' +
        'WHERE NOT EXISTS (SELECT 1 FROM memory_checkpoints k WHERE k.campaign_id = c.id)',
    );

    // PostgreSQL's search rows: one per wording of a memory (its search_seq), not one per memory id.
    if (pg && (await q.hasTable('search_memories'))) await swapPrimaryKey(q, 'search_memories', 'campaign_id, seq');
  }

  async down(q: QueryRunner): Promise<void> {
    const pg = q.connection.options.type === 'postgres';

    // Only the newest wording of a memory fits the old keys; a fork's rows clash with its parent's (down refuses).
    if (pg && (await q.hasTable('search_memories'))) {
      await q.query(
        'DELETE FROM search_memories s WHERE EXISTS (SELECT 1 FROM search_memories t ' +
          'WHERE t.campaign_id = s.campaign_id AND t.memory_id = s.memory_id AND t.seq > s.seq)',
      );
      await swapPrimaryKey(q, 'search_memories', 'memory_id');
    }

    await q.query('ALTER TABLE memory_checkpoints DROP COLUMN timeline');
    await q.query('ALTER TABLE rolling_summaries DROP COLUMN withheld_version');

    // Glossary: the live coining of each term (else the first), under the old key.
    const liveFirst =
      'DELETE FROM glossary_terms WHERE EXISTS (SELECT 1 FROM glossary_terms g ' +
      'WHERE g.campaign_id = glossary_terms.campaign_id AND g.term_key = glossary_terms.term_key ' +
      'AND g.memory_version <> glossary_terms.memory_version AND ((g.withdrawn_version IS NULL) > ' +
      '(glossary_terms.withdrawn_version IS NULL) OR ((g.withdrawn_version IS NULL) = ' +
      '(glossary_terms.withdrawn_version IS NULL) AND g.memory_version < glossary_terms.memory_version)))';
    await q.query(liveFirst);
    if (pg) {
      await swapPrimaryKey(q, 'glossary_terms', 'campaign_id, term_key');
      await q.query('ALTER TABLE glossary_terms DROP COLUMN withheld_version');
      await q.query('ALTER TABLE glossary_terms DROP COLUMN withdrawn_version');
    } else {
      await q.query(`CREATE TABLE glossary_terms_old (${GLOSSARY_DDL}, PRIMARY KEY (campaign_id, term_key))`);
      await q.query(
        `INSERT INTO glossary_terms_old (${GLOSSARY_COLUMNS}) SELECT ${GLOSSARY_COLUMNS} FROM glossary_terms`,
      );
      await q.query('DROP TABLE glossary_terms');
      await q.query('ALTER TABLE glossary_terms_old RENAME TO glossary_terms');
      await q.query('CREATE INDEX ix_glossary_coined ON glossary_terms (campaign_id, coined_message_index)');
    }

    await q.query('DROP TABLE memory_history');
    await q.query('DROP INDEX ix_memories_withheld');
    await q.query('DROP INDEX ix_memories_through');
    if (pg) {
      await swapPrimaryKey(q, 'memories', 'id');
      for (const c of ['revision', 'origin', 'status', 'changed_version', 'locked', 'cursor'])
        await q.query(`ALTER TABLE memories DROP COLUMN ${c}`);
    } else {
      await q.query(`CREATE TABLE memories_old (${MEMORY_DDL}, PRIMARY KEY (id))`);
      await q.query(`INSERT INTO memories_old (${MEMORY_COLUMNS}) SELECT ${MEMORY_COLUMNS} FROM memories`);
      await q.query('DROP TABLE memories');
      await q.query('ALTER TABLE memories_old RENAME TO memories');
      await createMemoryIndexes(q);
    }

    await q.query('DROP INDEX ix_messages_retracted');
    await q.query('DROP INDEX ix_messages_version');
    await q.query('ALTER TABLE messages DROP COLUMN retract_reason');
    await q.query('ALTER TABLE messages DROP COLUMN retracted_version');

    await q.query('DROP TABLE campaign_timelines');
    await q.query('DROP TABLE campaign_state_rows');
    await q.query('DROP INDEX ix_campaigns_parent');
    for (const c of ['parent_version', 'parent_id', 'message_count', 'timeline'])
      await q.query(`ALTER TABLE campaigns DROP COLUMN ${c}`);

    await q.query('DROP INDEX ix_events_trigger');
    await q.query('ALTER TABLE events DROP COLUMN trigger_version');
  }
}

async function createMemoryIndexes(q: QueryRunner): Promise<void> {
  await q.query(
    'CREATE UNIQUE INDEX ux_memories_trigger ON memories (campaign_id, scope, subject_id, trigger_version)',
  );
  await q.query('CREATE INDEX ix_memories_scope ON memories (campaign_id, scope, subject_id, memory_version)');
}

/** PostgreSQL: replace a table's primary key (its constraint name is TypeORM's generated one, so it is looked up). */
async function swapPrimaryKey(q: QueryRunner, table: string, columns: string): Promise<void> {
  const [pk] = (await q.query(
    'SELECT constraint_name FROM information_schema.table_constraints ' +
      "WHERE table_schema = current_schema() AND table_name = $1 AND constraint_type = 'PRIMARY KEY'",
    [table],
  )) as { constraint_name: string }[];
  const drop = pk ? `DROP CONSTRAINT "${pk.constraint_name}", ` : '';
  await q.query(`ALTER TABLE ${table} ${drop}ADD PRIMARY KEY (${columns})`);
}
