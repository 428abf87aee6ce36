/** Anything that runs SQL: a TypeORM QueryRunner or EntityManager. */
export interface SqlRunner {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- TypeORM's query() is typed any; callers shape rows
  query(sql: string, parameters?: unknown[]): Promise<any>;
}

/** Text search configuration every PostgreSQL index row and query goes through. */
export const PG_TS_CONFIG = 'lk_search';

export const PG_SEARCH_TABLES = [
  'search_messages',
  'search_reasoning',
  'search_memories',
  'search_broadcasts',
] as const;

export interface PostgresSearchSetup {
  unaccent: boolean;
  btreeGin: boolean;
  utf8: boolean;
}

// Every token type the default parser emits for words, so "café2" (numword) is folded like "café" (word).
const WORD_TOKENS = 'asciiword, asciihword, hword_asciipart, word, hword, hword_part, numword, numhword, hword_numpart';

/**
 * DDL of the PostgreSQL index (DESIGN §7), idempotent so a re-run (or a test database) is harmless.
 * Accent folding: the `unaccent` dictionary in config `lk_search` when that extension can be created;
 * otherwise `lk_fold()` strips combining marks after NFD (snippets then show unaccented text).
 * `btree_gin`, when available, lets one GIN index serve `campaign_id = $1 AND tsv @@ q`.
 * Changing it means a new migration: existing databases keep what the first one created.
 */
export async function createPostgresSearchSchema(q: SqlRunner, inTransaction: boolean): Promise<PostgresSearchSetup> {
  const unaccentSchema = await extensionSchema(q, 'unaccent', inTransaction);
  const unaccent = unaccentSchema !== null;
  const btreeGin = await tryExtension(q, 'btree_gin', inTransaction);
  const [{ encoding }] = await q.query(`SELECT current_setting('server_encoding') AS encoding`);
  const utf8 = String(encoding).toUpperCase() === 'UTF8';

  // Per schema: another schema's config (e.g. another replica set or test schema) is not on our search_path.
  const configExists =
    (
      await q.query('SELECT 1 FROM pg_ts_config WHERE cfgname = $1 AND cfgnamespace = current_schema()::regnamespace', [
        PG_TS_CONFIG,
      ])
    ).length > 0;
  if (!configExists) {
    await q.query(`CREATE TEXT SEARCH CONFIGURATION ${PG_TS_CONFIG} (COPY = simple)`);
    if (unaccent)
      await q.query(
        `ALTER TEXT SEARCH CONFIGURATION ${PG_TS_CONFIG} ALTER MAPPING FOR ${WORD_TOKENS} WITH ` +
          `"${unaccentSchema}".unaccent, simple`,
      );
  }
  // NFC so a decomposed "e + ◌́" meets the dictionary as "é"; without unaccent, drop the marks instead.
  const fold = !utf8
    ? '$1'
    : unaccent
      ? 'normalize($1, NFC)'
      : `regexp_replace(normalize($1, NFD), '[\\u0300-\\u036f]', '', 'g')`;
  await q.query(
    `CREATE OR REPLACE FUNCTION lk_fold(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS ` +
      `$fold$ SELECT ${fold} $fold$`,
  );

  await createTables(q, btreeGin);
  return { unaccent, btreeGin, utf8 };
}

export async function dropPostgresSearchSchema(q: SqlRunner): Promise<void> {
  for (const table of PG_SEARCH_TABLES) await q.query(`DROP TABLE IF EXISTS ${table}`);
  await q.query('DROP FUNCTION IF EXISTS lk_fold(text)');
  await q.query(`DROP TEXT SEARCH CONFIGURATION IF EXISTS ${PG_TS_CONFIG}`);
}

/** Creates an extension when the server has it and the role may; a refusal leaves the transaction usable. */
async function tryExtension(q: SqlRunner, name: string, inTransaction: boolean): Promise<boolean> {
  return (await extensionSchema(q, name, inTransaction)) !== null;
}

/**
 * The schema an extension lives in (created when the server has it and the role may), or null.
 * Extensions are database-wide but their objects sit in one schema, which may not be on our search_path.
 */
async function extensionSchema(q: SqlRunner, name: string, inTransaction: boolean): Promise<string | null> {
  const where = async () =>
    (
      (await q.query(
        'SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE ' +
          'e.extname = $1',
        [name],
      )) as { schema: string }[]
    )[0]?.schema ?? null;
  const existing = await where();
  if (existing) return existing;
  if ((await q.query('SELECT 1 FROM pg_available_extensions WHERE name = $1', [name])).length === 0) return null;
  if (inTransaction) await q.query('SAVEPOINT lk_search_extension');
  try {
    await q.query(`CREATE EXTENSION IF NOT EXISTS ${name}`);
    if (inTransaction) await q.query('RELEASE SAVEPOINT lk_search_extension');
    return await where();
  } catch {
    if (inTransaction) await q.query('ROLLBACK TO SAVEPOINT lk_search_extension');
    return null;
  }
}

/** The four index tables and their GIN indexes (one with campaign_id in it when btree_gin is there). */
async function createTables(q: SqlRunner, btreeGin: boolean): Promise<void> {
  const messageColumns = (text: string) => `
    campaign_id varchar(128) NOT NULL,
    idx integer NOT NULL,
    role varchar(16) NOT NULL,
    location_id varchar(128),
    at varchar(40) NOT NULL,
    round integer NOT NULL,
    ${text} text NOT NULL,
    tsv tsvector NOT NULL,
    PRIMARY KEY (campaign_id, idx)`;
  await q.query(`CREATE TABLE IF NOT EXISTS search_messages (${messageColumns('content')})`);
  await q.query(`CREATE TABLE IF NOT EXISTS search_reasoning (${messageColumns('reasoning')})`);
  await q.query(`CREATE TABLE IF NOT EXISTS search_memories (
    campaign_id varchar(128) NOT NULL,
    memory_id varchar(300) NOT NULL PRIMARY KEY,
    seq integer NOT NULL,
    location_id varchar(128),
    at varchar(40) NOT NULL,
    round integer,
    summary text NOT NULL,
    tsv tsvector NOT NULL)`);
  await q.query(`CREATE TABLE IF NOT EXISTS search_broadcasts (
    broadcast_id varchar(128) NOT NULL PRIMARY KEY,
    seq bigint NOT NULL,
    sender varchar(128) NOT NULL,
    at varchar(40) NOT NULL,
    content text NOT NULL,
    tsv tsvector NOT NULL)`);
  const gin = (table: string) => (btreeGin ? `${table} USING gin (campaign_id, tsv)` : `${table} USING gin (tsv)`);
  await q.query(`CREATE INDEX IF NOT EXISTS ix_search_messages_tsv ON ${gin('search_messages')}`);
  await q.query(`CREATE INDEX IF NOT EXISTS ix_search_reasoning_tsv ON ${gin('search_reasoning')}`);
  await q.query(`CREATE INDEX IF NOT EXISTS ix_search_memories_tsv ON ${gin('search_memories')}`);
  await q.query('CREATE INDEX IF NOT EXISTS ix_search_broadcasts_tsv ON search_broadcasts USING gin (tsv)');
}
