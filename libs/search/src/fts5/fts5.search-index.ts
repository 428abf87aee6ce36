import { inTimedSlices } from '@app/common';
import { atGroupEnd, Database, sql, transactionLocal } from '@app/database';
import { EntityManager } from 'typeorm';
import { compileFts5, QueryNode } from '../query/query-language';
import { rankLocally, scoringTerms } from './local-bm25';
import {
  BroadcastDoc,
  candidateLimit,
  HIT_CLOSE,
  HIT_OPEN,
  MemoryDoc,
  MessageDoc,
  SearchFilters,
  SearchHit,
  SearchIndex,
  SearchIndexOptions,
  SNIPPET_ELLIPSIS,
  SNIPPET_WORDS,
} from '../search-index.port';
import { CORRECTION_ROWS, wordingOfRow, wordingRow } from '../wording-rows';
import { FTS5_TABLES } from './fts5.schema';

/** A campaign's rows are `(num << 32) + local id`: the local id's mask. */
export const LOW_32 = 4294967295;
/** Most rows an index insert carries (its parameters), and the rows of its first slice (inTimedSlices: the rest). */
const CHUNK = 100;
const FIRST_SLICE = 25;

type Row = Record<string, unknown>;

/** Rows of one campaign: `rowid BETWEEN lo AND hi` is pushed into FTS5, so MATCH only walks that range. */
const CAMPAIGN_RANGE = 'rowid BETWEEN (? << 32) AND (? << 32) + ?';

/**
 * SQLite FTS5 adapter (DESIGN §7): bm25 ranking (score = −bm25), `snippet()` with «» marks,
 * `unicode61 remove_diacritics 2`. A campaign's rows share the high 32 bits of their rowid.
 */
export class Fts5SearchIndex implements SearchIndex {
  private readonly candidates: number;
  /** Key of the campaign numbers a transaction has looked up (a commit group indexes many messages of one campaign). */
  private readonly nums = {};

  constructor(
    private readonly db: Database,
    options: SearchIndexOptions = {},
  ) {
    this.candidates = candidateLimit(options);
  }

  async indexMessages(m: EntityManager, campaignId: string, docs: MessageDoc[]): Promise<void> {
    const content = docs.filter((d) => d.content.trim() !== '');
    const reasoning = docs.filter((d) => d.reasoning !== null && d.reasoning.trim() !== '');
    if (content.length === 0 && reasoning.length === 0) return;
    // Same transaction, but once per commit group rather than inside each write's savepoint.
    await atGroupEnd(m, async () => {
      const num = await this.campaignNum(m, campaignId);
      const row = (d: MessageDoc, text: string) => [num, d.index, text, d.role, d.locationId, d.at, d.round];
      await insert(
        m,
        'search_messages (rowid, content, role, location_id, at, round)',
        7,
        content.map((d) => row(d, d.content)),
      );
      await insert(
        m,
        'search_reasoning (rowid, reasoning, role, location_id, at, round)',
        7,
        reasoning.map((d) => row(d, d.reasoning!)),
      );
    });
  }

  async indexMemories(m: EntityManager, campaignId: string, docs: MemoryDoc[]): Promise<void> {
    if (docs.length === 0) return;
    await atGroupEnd(m, async () => {
      const num = await this.campaignNum(m, campaignId);
      await insert(
        m,
        'search_memories (rowid, summary, memory_id, location_id, at, round)',
        7,
        docs.map((d) => [num, wordingRow(d.wording), d.summary, d.id, d.locationId, d.at, d.round]),
      );
    });
  }

  async indexBroadcasts(m: EntityManager, docs: BroadcastDoc[]): Promise<void> {
    for (let i = 0; i < docs.length; i += CHUNK) {
      const chunk = docs.slice(i, i + CHUNK);
      const values = chunk.map(() => '(?, ?, ?, ?, ?)').join(', ');
      await m.query(
        `INSERT INTO search_broadcasts (rowid, content, broadcast_id, sender, at) VALUES ${values}`,
        chunk.flatMap((d) => [d.seq, d.content, d.id, d.from, d.at]),
      );
    }
  }

  async search(campaignId: string | null, query: QueryNode, filters: SearchFilters): Promise<SearchHit[]> {
    const match = compileFts5(query);
    return this.db.read((m) =>
      campaignId === null
        ? this.searchBroadcasts(m, match, filters.limit)
        : this.searchCampaign(m, campaignId, match, query, filters),
    );
  }

  private async searchBroadcasts(m: EntityManager, match: string, limit: number): Promise<SearchHit[]> {
    const rows = await this.ranked(m, 'search_broadcasts', 'broadcast_id AS ref, sender, at', [], [], match, limit);
    return rows.map((r) => ({
      kind: 'broadcast',
      ref: String(r.ref),
      snippet: String(r.snippet),
      score: -Number(r.bm),
      at: String(r.at),
      round: null,
      from: String(r.sender),
    }));
  }

  private async searchCampaign(
    m: EntityManager,
    campaignId: string,
    match: string,
    query: QueryNode,
    filters: SearchFilters,
  ): Promise<SearchHit[]> {
    const found = (await m.query('SELECT num FROM search_campaigns WHERE campaign_id = ?', [campaignId])) as {
      num: number;
    }[];
    if (found.length === 0) return [];
    const num = Number(found[0].num);
    // The campaign at the read's version (what its own statistics count), then the caller's filters.
    // The as-of bound is the top of the rowid range (local id = message index or memory version): no extra filter.
    const top = filters.at && filters.in !== 'memories' ? Math.min(LOW_32, filters.at.messageCount - 1) : LOW_32;
    const scope: Cond = { where: [CAMPAIGN_RANGE], params: [num, num, top] };
    const filter: Cond = { where: [], params: [] };
    if (filters.in !== 'memories' && filters.role !== undefined) {
      filter.where.push('role = ?');
      filter.params.push(filters.role);
    }
    if (filters.locationId !== undefined) {
      filter.where.push('location_id = ?');
      filter.params.push(filters.locationId);
    }
    const ask = { match, query, limit: filters.limit };
    if (filters.in === 'memories') {
      // Two ranges of local ids: recorded and revised wordings through the memory version, corrections through the
      // version (CORRECTION_ROWS).
      if (filters.at && filters.at.memoryVersion < CORRECTION_ROWS) {
        scope.where.push(`((rowid & ${LOW_32}) <= ? OR (rowid & ${LOW_32}) BETWEEN ${CORRECTION_ROWS} AND ?)`);
        scope.params.push(filters.at.memoryVersion, CORRECTION_ROWS + (filters.at.version ?? LOW_32 - CORRECTION_ROWS));
      }
      const columns = `memory_id AS ref, rowid & ${LOW_32} AS seq, at, round`;
      const rows = await rankInCampaign(m, this.candidates, 'search_memories', 'summary', columns, scope, filter, ask);
      return rows.map((r) => ({
        kind: 'memory',
        ref: String(r.ref),
        snippet: String(r.snippet),
        score: Number(r.score),
        at: String(r.at),
        round: r.round === null ? null : Number(r.round),
        wording: wordingOfRow(Number(r.seq)),
      }));
    }
    const [table, text] =
      filters.in === 'reasoning' ? ['search_reasoning', 'reasoning'] : ['search_messages', 'content'];
    const kind = filters.in === 'reasoning' ? 'reasoning' : 'message';
    const columns = `rowid & ${LOW_32} AS ref, at, round`;
    const rows = await rankInCampaign(m, this.candidates, table, text, columns, scope, filter, ask);
    return rows.map((r) => ({
      kind,
      ref: Number(r.ref),
      snippet: String(r.snippet),
      score: Number(r.score),
      at: String(r.at),
      round: Number(r.round),
    }));
  }

  async clear(m: EntityManager): Promise<void> {
    // search_campaigns is kept: its numbers stay valid for a running service.
    for (const table of FTS5_TABLES) await m.query(`DELETE FROM ${table}`);
  }

  /**
   * bm25 over the newest `candidates` matches (FTS5 walks the postings newest first and stops), then
   * `snippet()` for the `limit` best only, looked up again by rowid. Ties: newest first.
   */
  private async ranked(
    m: EntityManager,
    table: string,
    columns: string,
    where: string[],
    params: unknown[],
    match: string,
    limit: number,
  ): Promise<Row[]> {
    const filter = [`${table} MATCH ?`, ...where].join(' AND ');
    return (await m.query(
      `WITH cand AS (SELECT rowid AS id, bm25(${table}) AS bm FROM ${table} WHERE ${filter} ORDER BY rowid
        DESC LIMIT ${this.candidates}),
            best AS (SELECT id, bm FROM cand ORDER BY bm, id DESC LIMIT ?)
       SELECT ${columns}, best.bm AS bm, ${snippet(table)} AS snippet
       FROM best JOIN ${table} ON ${table}.rowid = best.id
       WHERE ${table} MATCH ?
       ORDER BY best.bm, best.id DESC`,
      [match, ...params, limit, match],
    )) as Row[];
  }

  /**
   * The campaign's number, created on its first indexed row (inside the caller's transaction); looked up once per
   * transaction.
   */
  private async campaignNum(m: EntityManager, campaignId: string): Promise<number> {
    const known = transactionLocal(m, this.nums, () => new Map<string, number>());
    let num = known.get(campaignId);
    if (num === undefined) {
      const found = (
        await sql<{ num: number }>(m, 'SELECT num FROM search_campaigns WHERE campaign_id = ?', [campaignId])
      ).rows;
      num = Number(
        (found.length
          ? found
          : (
              await sql<{ num: number }>(m, 'INSERT INTO search_campaigns (campaign_id) VALUES (?) RETURNING num', [
                campaignId,
              ])
            ).rows)[0].num,
      );
      known.set(campaignId, num);
    }
    return num;
  }
}

/** SQL conditions and their values, in order. */
interface Cond {
  where: string[];
  params: unknown[];
}

/**
 * DESIGN §8 "recall depends on the campaign alone": FTS5's bm25() counts the whole table, so another campaign's rows
 * moved this one's ranks. Here FTS5 only finds: the newest `candidates` matches of the campaign (with the caller's
 * filters); they are ranked by BM25 over the campaign's own rows at the read's version (local-bm25.ts), and
 * `snippet()` is read for the `limit` best only.
 */
async function rankInCampaign(
  m: EntityManager,
  candidates: number,
  table: string,
  text: string,
  columns: string,
  scope: Cond,
  filter: Cond,
  ask: { match: string; query: QueryNode; limit: number },
): Promise<Row[]> {
  const scoped = scope.where.join(' AND ');
  const where = [...scope.where, ...filter.where].join(' AND ');
  // Through sql(), which binds whole numbers as INTEGER: bound by m.query they were REAL, and FTS5 takes a REAL rowid
  // bound for none — the scan for `docs` below walked every newer campaign's rows (≈ 100 ms behind a 1M campaign).
  const found = (
    await sql<{ id: number; body: string }>(
      m,
      `SELECT rowid AS id, ${text} AS body FROM ${table} WHERE ${table} MATCH ? AND ${where} ORDER BY rowid DESC
     LIMIT ${candidates}`,
      [ask.match, ...scope.params, ...filter.params],
    )
  ).rows;
  if (found.length === 0) return [];
  const terms = scoringTerms(ask.query);
  const count = async (query: string, params: unknown[]) => Number((await sql<Row>(m, query, params)).rows[0].n);
  const containing: number[] = [];
  for (const t of terms)
    containing.push(
      await count(`SELECT count(*) AS n FROM ${table} WHERE ${table} MATCH ? AND ${scoped}`, [
        compileFts5({ kind: 'word', word: t.word, prefix: t.prefix }),
        ...scope.params,
      ]),
    );
  // Messages: the campaign's indexes up to the newest indexed one (one seek); memories are few: counted.
  const docs =
    table === 'search_memories'
      ? await count(`SELECT count(*) AS n FROM ${table} WHERE ${scoped}`, scope.params)
      : await count(
          `SELECT (rowid & ${LOW_32}) + 1 AS n FROM ${table} WHERE ${scoped} ORDER BY rowid DESC LIMIT 1`,
          scope.params,
        );
  const best = rankLocally(
    found.map((f) => ({ id: Number(f.id), body: String(f.body) })),
    terms,
    { docs, containing },
  ).slice(0, ask.limit);
  // The best rows' snippets in one walk of their rowid span. `rowid IN (…)` beside MATCH would be one FTS5 query per
  // id, and a prefix term merges its whole doclist (every campaign's) in each: 20 × 3–4 ms. The unary `+` keeps the
  // IN list a filter, not an FTS5 constraint.
  const ids = best.map((b) => b.id);
  const rows = (
    await sql<Row>(
      m,
      `SELECT rowid AS id, ${columns}, ${snippet(table)} AS snippet FROM ${table}
     WHERE ${table} MATCH ? AND rowid BETWEEN ? AND ? AND +rowid IN (${ids.map(() => '?').join(', ')})`,
      [ask.match, Math.min(...ids), Math.max(...ids), ...ids],
    )
  ).rows;
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  return best.flatMap((b) => (byId.has(b.id) ? [{ ...byId.get(b.id)!, score: b.score }] : []));
}

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
const snippet = (table: string) =>
  `snippet(${table}, 0, ${quote(HIT_OPEN)}, ${quote(HIT_CLOSE)}, ${quote(SNIPPET_ELLIPSIS)}, ${SNIPPET_WORDS})`;

/** Multi-row insert whose rowid is `(campaign number << 32) + local id` (the first two values of each row). */
async function insert(m: EntityManager, target: string, width: number, rows: unknown[][]): Promise<void> {
  const tuple = `((? << 32) + ?${', ?'.repeat(width - 2)})`;
  // §13: FTS5 tokenizes each slice; between them the event loop is given back (500 long messages held it 60 ms).
  await inTimedSlices(rows.length, { first: FIRST_SLICE, max: CHUNK }, async (lo, hi) => {
    const chunk = rows.slice(lo, hi);
    await sql(m, `INSERT INTO ${target} VALUES ${chunk.map(() => tuple).join(', ')}`, chunk.flat());
  });
}
