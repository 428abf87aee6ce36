/** FTS5 tokenizer (DESIGN §7): Unicode word splitting, case folding, accents removed ("cafe" finds "Café"). */
export const FTS5_TOKENIZE = 'tokenize = "unicode61 remove_diacritics 2"';

/** Index tables of the SQLite adapter; rowids encode (campaign number << 32) + message index or memory seq. */
export const FTS5_TABLES = ['search_messages', 'search_reasoning', 'search_memories', 'search_broadcasts'] as const;

/**
 * DDL of the FTS5 index (run by the search-index migration on SQLite only). Changing it means a new
 * migration: existing databases keep what the first one created.
 */
export const FTS5_DDL: readonly string[] = [
  // Small integer per campaign, so a campaign's rows form one rowid range that MATCH can be restricted to.
  'CREATE TABLE search_campaigns (num INTEGER PRIMARY KEY, campaign_id VARCHAR(128) NOT NULL UNIQUE)',
  `CREATE VIRTUAL TABLE search_messages USING fts5(content, role UNINDEXED, location_id UNINDEXED, at ` +
    `UNINDEXED, round UNINDEXED, ${FTS5_TOKENIZE})`,
  `CREATE VIRTUAL TABLE search_reasoning USING fts5(reasoning, role UNINDEXED, location_id UNINDEXED, at ` +
    `UNINDEXED, round UNINDEXED, ${FTS5_TOKENIZE})`,
  `CREATE VIRTUAL TABLE search_memories USING fts5(summary, memory_id UNINDEXED, location_id UNINDEXED, at ` +
    `UNINDEXED, round UNINDEXED, ${FTS5_TOKENIZE})`,
  `CREATE VIRTUAL TABLE search_broadcasts USING fts5(content, broadcast_id UNINDEXED, sender UNINDEXED, at ` +
    `UNINDEXED, ${FTS5_TOKENIZE})`,
];

export const FTS5_DROP: readonly string[] = [
  ...FTS5_TABLES.map((t) => `DROP TABLE IF EXISTS ${t}`),
  'DROP TABLE IF EXISTS search_campaigns',
];

/**
 * The message and reasoning tables as the lean-message-writes migration re-creates them (as `<table>_next`, then
 * renamed): `columnsize=0`, no per-row token counts to write — their BM25 is computed locally (local-bm25.ts), never
 * with FTS5's bm25(), and snippet() counts a row's tokens from its text when asked.
 */
export const FTS5_LEAN_TEXT_DDL = {
  search_messages:
    `CREATE VIRTUAL TABLE search_messages_next USING fts5(content, role UNINDEXED, location_id UNINDEXED, at ` +
    `UNINDEXED, round UNINDEXED, ${FTS5_TOKENIZE}, columnsize=0)`,
  search_reasoning:
    `CREATE VIRTUAL TABLE search_reasoning_next USING fts5(reasoning, role UNINDEXED, location_id UNINDEXED, at ` +
    `UNINDEXED, round UNINDEXED, ${FTS5_TOKENIZE}, columnsize=0)`,
} as const;
