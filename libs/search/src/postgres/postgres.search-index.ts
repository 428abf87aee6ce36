import { Database } from '@app/database';
import { EntityManager } from 'typeorm';
import { compileTsquery, QueryNode } from '../query/query-language';
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
  SNIPPET_WORDS,
} from '../search-index.port';
import { CORRECTION_ROWS, rowBound, wordingOfRow, wordingRow } from '../wording-rows';
import { PG_SEARCH_TABLES, PG_TS_CONFIG } from './postgres.schema';

const CHUNK = 100;
const CFG = `'${PG_TS_CONFIG}'`;
const TSV = (param: string) => `to_tsvector(${CFG}, lk_fold(${param}))`;
// Quotes keep the option parser from splitting on the markers; one fragment of up to SNIPPET_WORDS words.
const HEADLINE_OPTIONS =
  `'StartSel="${HIT_OPEN}", StopSel="${HIT_CLOSE}", MaxWords=${SNIPPET_WORDS}, ` +
  `MinWords=${Math.floor(SNIPPET_WORDS / 3)}, ShortWord=2, MaxFragments=1'`;

type Row = Record<string, unknown>;

/**
 * PostgreSQL adapter (DESIGN §7): `tsvector` columns under GIN, `ts_rank_cd` (score, higher is
 * better), `ts_headline` with «» marks; case folding by the `simple` dictionary, accents by
 * `unaccent` or `lk_fold()` (see postgres.schema.ts). Headlines are computed for the top rows only.
 */
export class PostgresSearchIndex implements SearchIndex {
  private readonly candidates: number;

  constructor(
    private readonly db: Database,
    options: SearchIndexOptions = {},
  ) {
    this.candidates = candidateLimit(options);
  }

  async indexMessages(m: EntityManager, campaignId: string, docs: MessageDoc[]): Promise<void> {
    const content = docs.filter((d) => d.content.trim() !== '');
    const reasoning = docs.filter((d) => d.reasoning !== null && d.reasoning.trim() !== '');
    const row = (d: MessageDoc, text: string) => [campaignId, d.index, d.role, d.locationId, d.at, d.round, text];
    await insert(
      m,
      'search_messages (campaign_id, idx, role, location_id, at, round, content, tsv)',
      7,
      content.map((d) => row(d, d.content)),
    );
    await insert(
      m,
      'search_reasoning (campaign_id, idx, role, location_id, at, round, reasoning, tsv)',
      7,
      reasoning.map((d) => row(d, d.reasoning!)),
    );
  }

  async indexMemories(m: EntityManager, campaignId: string, docs: MemoryDoc[]): Promise<void> {
    await insert(
      m,
      'search_memories (campaign_id, memory_id, seq, location_id, at, round, summary, tsv)',
      7,
      docs.map((d) => [campaignId, d.id, wordingRow(d.wording), d.locationId, d.at, d.round, d.summary]),
    );
  }

  async indexBroadcasts(m: EntityManager, docs: BroadcastDoc[]): Promise<void> {
    await insert(
      m,
      'search_broadcasts (broadcast_id, seq, sender, at, content, tsv)',
      5,
      docs.map((d) => [d.id, d.seq, d.from, d.at, d.content]),
    );
  }

  async search(campaignId: string | null, query: QueryNode, filters: SearchFilters): Promise<SearchHit[]> {
    const tsquery = compileTsquery(query);
    return this.db.read(async (m) => {
      if (campaignId === null) {
        const rows = (await m.query(
          this.ranked('search_broadcasts', 'broadcast_id', 'content', ['sender'], [], 'seq'),
          [tsquery, filters.limit],
        )) as Row[];
        return rows.map((r) => ({
          kind: 'broadcast',
          ref: String(r.ref),
          snippet: String(r.snippet),
          score: Number(r.score),
          at: String(r.at),
          round: null,
          from: String(r.sender),
        }));
      }
      const { params, where } = campaignFilters(tsquery, campaignId, filters);
      if (filters.in === 'memories') {
        const rows = (await m.query(
          this.ranked('search_memories', 'memory_id', 'summary', ['round', 'seq'], where, 'seq'),
          params,
        )) as Row[];
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
      const [table, text, kind] =
        filters.in === 'reasoning'
          ? ['search_reasoning', 'reasoning', 'reasoning' as const]
          : ['search_messages', 'content', 'message' as const];
      const rows = (await m.query(this.ranked(table, 'idx', text, ['round'], where, 'idx'), params)) as Row[];
      return rows.map((r) => ({
        kind,
        ref: Number(r.ref),
        snippet: String(r.snippet),
        score: Number(r.score),
        at: String(r.at),
        round: Number(r.round),
      }));
    });
  }

  async clear(m: EntityManager): Promise<void> {
    await m.query(`TRUNCATE ${PG_SEARCH_TABLES.join(', ')}`);
  }

  private ranked(table: string, ref: string, text: string, columns: string[], where: string[], order: string): string {
    return rankedSql(table, ref, text, columns, where, order, this.candidates);
  }
}

/** The parameters (`$1` tsquery, `$2` limit, `$3` campaign, then the filters') and conditions of a campaign search. */
function campaignFilters(
  tsquery: string,
  campaignId: string,
  filters: SearchFilters,
): { params: unknown[]; where: string[] } {
  const params: unknown[] = [tsquery, filters.limit, campaignId];
  const where = ['s.campaign_id = $3'];
  if (filters.in !== 'memories' && filters.role !== undefined) {
    params.push(filters.role);
    where.push(`s.role = $${params.length}`);
  }
  if (filters.locationId !== undefined) {
    params.push(filters.locationId);
    where.push(`s.location_id = $${params.length}`);
  }
  if (filters.at) {
    // The as-of bound (DESIGN §10): message index below the count, memory sequence through the memory version.
    // `seq` is an integer column: a current read's unbounded memory version is clamped to int4.
    params.push(filters.in === 'memories' ? rowBound(filters.at.memoryVersion) : filters.at.messageCount - 1);
    where.push(`s.${filters.in === 'memories' ? 'seq' : 'idx'} <= $${params.length}`);
    // §10: and a memory's DM corrections through the version (their rows sit at CORRECTION_ROWS + version).
    if (filters.in === 'memories' && filters.at.memoryVersion < CORRECTION_ROWS) {
      params.push(rowBound(CORRECTION_ROWS + (filters.at.version ?? Number.MAX_SAFE_INTEGER)));
      where[where.length - 1] =
        `(${where[where.length - 1]} OR s.seq BETWEEN ${CORRECTION_ROWS} AND $${params.length})`;
    }
  }
  return { params, where };
}

/**
 * `$1` = tsquery text, `$2` = limit. Innermost: the newest `candidates` matches (GIN: `tsv @@ q`,
 * restricted by `where`); then ts_rank_cd on those only; headlines for the `limit` best. Ties: newest first.
 */
function rankedSql(
  table: string,
  ref: string,
  text: string,
  columns: string[],
  where: string[],
  order: string,
  candidates: number,
): string {
  const q = `to_tsquery(${CFG}, lk_fold($1))`;
  const pass = (alias: string) => columns.map((c) => `${alias}.${c}, `).join('');
  return `SELECT h.ref, h.at, ${pass('h')}h.score, ts_headline(${CFG}, lk_fold(h.body), ${q},
    ${HEADLINE_OPTIONS}) AS snippet
    FROM (
      SELECT c.ref, c.at, ${pass('c')}c.body, c.ord, ts_rank_cd(c.tsv, q, 1) AS score
      FROM (
        SELECT s.${ref} AS ref, s.at, ${pass('s')}s.${text} AS body, s.${order} AS ord, s.tsv
        FROM ${table} s, ${q} q
        WHERE s.tsv @@ q${where.map((w) => ` AND ${w}`).join('')}
        ORDER BY s.${order} DESC
        LIMIT ${candidates}
      ) c, ${q} q
      ORDER BY score DESC, c.ord DESC
      LIMIT $2
    ) h
    ORDER BY h.score DESC, h.ord DESC`;
}

/** Multi-row insert; the last value of each row is also the text its `tsv` is built from. */
async function insert(m: EntityManager, target: string, width: number, rows: unknown[][]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    const tuples = chunk.map((_, r) => {
      const p = Array.from({ length: width }, (_v, c) => `$${r * width + c + 1}`);
      return `(${p.join(', ')}, ${TSV(p[width - 1])})`;
    });
    await m.query(`INSERT INTO ${target} VALUES ${tuples.join(', ')}`, chunk.flat());
  }
}
