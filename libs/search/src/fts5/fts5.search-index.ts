import { Database } from '@app/event-store';
import { EntityManager } from 'typeorm';
import { compileFts5, QueryNode } from '../query/query-language';
import { BroadcastDoc, HIT_CLOSE, HIT_OPEN, MemoryDoc, MessageDoc, SearchFilters, SearchHit, SearchIndex, SNIPPET_ELLIPSIS, SNIPPET_WORDS } from '../search-index.port';
import { FTS5_TABLES } from './fts5.schema';

const LOW_32 = 4294967295;
const CHUNK = 100;

type Row = Record<string, unknown>;

/** Rows of one campaign: `rowid BETWEEN lo AND hi` is pushed into FTS5, so MATCH only walks that range. */
const CAMPAIGN_RANGE = `rowid BETWEEN (? << 32) AND (? << 32) + ${LOW_32}`;

/**
 * SQLite FTS5 adapter (DESIGN §7): bm25 ranking (score = −bm25), `snippet()` with «» marks,
 * `unicode61 remove_diacritics 2`. A campaign's rows share the high 32 bits of their rowid.
 */
export class Fts5SearchIndex implements SearchIndex {
  constructor(private readonly db: Database) {}

  async indexMessages(m: EntityManager, campaignId: string, docs: MessageDoc[]): Promise<void> {
    const content = docs.filter((d) => d.content.trim() !== '');
    const reasoning = docs.filter((d) => d.reasoning !== null && d.reasoning.trim() !== '');
    if (content.length === 0 && reasoning.length === 0) return;
    const num = await this.campaignNum(m, campaignId);
    const row = (d: MessageDoc, text: string) => [num, d.index, text, d.role, d.locationId, d.at, d.round];
    await insert(m, 'search_messages (rowid, content, role, location_id, at, round)', 7, content.map((d) => row(d, d.content)));
    await insert(m, 'search_reasoning (rowid, reasoning, role, location_id, at, round)', 7, reasoning.map((d) => row(d, d.reasoning!)));
  }

  async indexMemories(m: EntityManager, campaignId: string, docs: MemoryDoc[]): Promise<void> {
    if (docs.length === 0) return;
    const num = await this.campaignNum(m, campaignId);
    await insert(m, 'search_memories (rowid, summary, memory_id, location_id, at, round)', 7, docs.map((d) => [num, d.seq, d.summary, d.id, d.locationId, d.at, d.round]));
  }

  async indexBroadcasts(m: EntityManager, docs: BroadcastDoc[]): Promise<void> {
    for (let i = 0; i < docs.length; i += CHUNK) {
      const chunk = docs.slice(i, i + CHUNK);
      const values = chunk.map(() => '(?, ?, ?, ?, ?)').join(', ');
      await m.query(`INSERT INTO search_broadcasts (rowid, content, broadcast_id, sender, at) VALUES ${values}`, chunk.flatMap((d) => [d.seq, d.content, d.id, d.from, d.at]));
    }
  }

  async search(campaignId: string | null, query: QueryNode, filters: SearchFilters): Promise<SearchHit[]> {
    const match = compileFts5(query);
    return this.db.read(async (m) => {
      if (campaignId === null) return this.searchBroadcasts(m, match, filters.limit);
      const found = (await m.query('SELECT num FROM search_campaigns WHERE campaign_id = ?', [campaignId])) as { num: number }[];
      if (found.length === 0) return [];
      const num = Number(found[0].num);
      if (filters.in === 'memories') return this.searchMemories(m, num, match, filters);
      const table = filters.in === 'reasoning' ? 'search_reasoning' : 'search_messages';
      const where = [`${table} MATCH ?`, CAMPAIGN_RANGE];
      const params: unknown[] = [match, num, num];
      if (filters.role !== undefined) where.push('role = ?'), params.push(filters.role);
      if (filters.locationId !== undefined) where.push('location_id = ?'), params.push(filters.locationId);
      const rows = (await m.query(
        `SELECT rowid & ${LOW_32} AS ref, at, round, bm25(${table}) AS rank, ${snippet(table)} AS snippet
         FROM ${table} WHERE ${where.join(' AND ')} ORDER BY rank, rowid DESC LIMIT ?`,
        [...params, filters.limit],
      )) as Row[];
      const kind = filters.in === 'reasoning' ? 'reasoning' : 'message';
      return rows.map((r) => ({ kind, ref: Number(r.ref), snippet: String(r.snippet), score: -Number(r.rank), at: String(r.at), round: Number(r.round) }));
    });
  }

  async clear(m: EntityManager): Promise<void> {
    // search_campaigns is kept: its numbers stay valid for a running service.
    for (const table of FTS5_TABLES) await m.query(`DELETE FROM ${table}`);
  }

  private async searchMemories(m: EntityManager, num: number, match: string, filters: SearchFilters): Promise<SearchHit[]> {
    const where = ['search_memories MATCH ?', CAMPAIGN_RANGE];
    const params: unknown[] = [match, num, num];
    if (filters.locationId !== undefined) where.push('location_id = ?'), params.push(filters.locationId);
    const rows = (await m.query(
      `SELECT memory_id AS ref, at, round, bm25(search_memories) AS rank, ${snippet('search_memories')} AS snippet
       FROM search_memories WHERE ${where.join(' AND ')} ORDER BY rank, rowid DESC LIMIT ?`,
      [...params, filters.limit],
    )) as Row[];
    return rows.map((r) => ({ kind: 'memory', ref: String(r.ref), snippet: String(r.snippet), score: -Number(r.rank), at: String(r.at), round: r.round === null ? null : Number(r.round) }));
  }

  private async searchBroadcasts(m: EntityManager, match: string, limit: number): Promise<SearchHit[]> {
    const rows = (await m.query(
      `SELECT broadcast_id AS ref, sender, at, bm25(search_broadcasts) AS rank, ${snippet('search_broadcasts')} AS snippet
       FROM search_broadcasts WHERE search_broadcasts MATCH ? ORDER BY rank, rowid DESC LIMIT ?`,
      [match, limit],
    )) as Row[];
    return rows.map((r) => ({ kind: 'broadcast', ref: String(r.ref), snippet: String(r.snippet), score: -Number(r.rank), at: String(r.at), round: null, from: String(r.sender) }));
  }

  /** The campaign's number, created on its first indexed row (inside the caller's transaction). */
  private async campaignNum(m: EntityManager, campaignId: string): Promise<number> {
    const found = (await m.query('SELECT num FROM search_campaigns WHERE campaign_id = ?', [campaignId])) as { num: number }[];
    if (found.length) return Number(found[0].num);
    const created = (await m.query('INSERT INTO search_campaigns (campaign_id) VALUES (?) RETURNING num', [campaignId])) as { num: number }[];
    return Number(created[0].num);
  }
}

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
const snippet = (table: string) => `snippet(${table}, 0, ${quote(HIT_OPEN)}, ${quote(HIT_CLOSE)}, ${quote(SNIPPET_ELLIPSIS)}, ${SNIPPET_WORDS})`;

/** Multi-row insert whose rowid is `(campaign number << 32) + local id` (the first two values of each row). */
async function insert(m: EntityManager, target: string, width: number, rows: unknown[][]): Promise<void> {
  const tuple = `((? << 32) + ?${', ?'.repeat(width - 2)})`;
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    await m.query(`INSERT INTO ${target} VALUES ${chunk.map(() => tuple).join(', ')}`, chunk.flat());
  }
}
