import { CampaignReader, Horizon } from '@app/campaign';
import { MemoryHorizon, MemoryReader } from '@app/memory';
import { parseQuery, sameWording, SearchFilters, SearchHit, SearchIndex } from '@app/search';

/** Rounds of over-fetching memory hits whose other wordings (§10) are not served: each asks twice as many. */
const WORDING_ROUNDS = 4;

export type SearchOptions = Omit<SearchFilters, 'at'> & { asOf?: number };

/**
 * The memory hits served at the horizon (DESIGN §10): the index keeps a row per wording (recorded, revised, corrected)
 * and of memories deleted or withheld since; a hit stays only when it found the memory's wording then.
 */
export async function servedWordings(
  memories: MemoryReader,
  campaignId: string,
  hits: SearchHit[],
  at: MemoryHorizon,
): Promise<SearchHit[]> {
  const memoryHits = hits.filter((h) => h.kind === 'memory');
  if (memoryHits.length === 0) return hits;
  const wordings = await memories.wordingsAt(
    campaignId,
    memoryHits.map((h) => String(h.ref)),
    at,
  );
  return hits.filter((h) => h.kind !== 'memory' || sameWording(wordings.get(String(h.ref)), h.wording));
}

/** Campaign search (DESIGN §7): parse the user's query (400 INVALID_QUERY), check the campaign (404), rank. */
export class SearchService {
  constructor(
    private readonly campaigns: CampaignReader,
    private readonly index: SearchIndex,
    private readonly memories: MemoryReader,
  ) {}

  /**
   * With `asOf` (DESIGN §10), the hits the campaign had at that version: the index is bounded by the horizon's message
   * count and memory version. A current search passes the current horizon: one code path.
   */
  async search(campaignId: string, q: string, filters: SearchOptions): Promise<SearchHit[]> {
    const query = parseQuery(q);
    const { asOf, ...rest } = filters;
    const horizon = await this.campaigns.horizon(campaignId, asOf);
    if (rest.in !== 'memories') return this.index.search(campaignId, query, { ...rest, at: horizon });
    // Hits of wordings not served are dropped: ask for more until `limit` are kept or the index has no more.
    for (let round = 1, ask = rest.limit * 2; ; round++, ask *= 2) {
      const hits = await this.index.search(campaignId, query, { ...rest, limit: ask, at: horizon });
      const kept = await servedWordings(this.memories, campaignId, hits, horizon);
      if (kept.length >= rest.limit || hits.length < ask || round === WORDING_ROUNDS) return kept.slice(0, rest.limit);
    }
  }

  /**
   * GET …/search (DESIGN §7): the ranked hits, then those the caller may be served, best first, and the horizon they
   * were served at. `witness`: a viewer-bound caller's witness key (§8).
   */
  async served(
    campaignId: string,
    q: string,
    filters: SearchOptions,
    witness?: string,
  ): Promise<{ hits: SearchHit[]; horizon: Horizon }> {
    const ranked = await this.search(campaignId, q, filters);
    const horizon = await this.campaigns.horizon(campaignId, filters.asOf);
    return { hits: await this.servedHits(campaignId, witness, ranked, horizon), horizon };
  }

  /**
   * The hits the caller may be served at the horizon: a viewer's witnessed ones (§8), and for everyone only messages
   * not retracted by then and memories active then (§10: the index keeps rows of both; primary-key lookups of the
   * hits only).
   */
  private async servedHits(
    cid: string,
    witness: string | undefined,
    hits: SearchHit[],
    at: Horizon,
  ): Promise<SearchHit[]> {
    const { campaigns, memories } = this;
    const indexes = hits.filter((h) => h.kind !== 'memory').map((h) => Number(h.ref));
    const visible = witness
      ? await campaigns.witnessed(cid, witness, indexes, at)
      : new Set((await campaigns.messagesByIndex(cid, indexes, at)).map((m) => m.index));
    const memoryIds = hits.filter((h) => h.kind === 'memory').map((h) => String(h.ref));
    const served = new Set((await memories.byIds(cid, memoryIds, witness, at)).map((m) => m.id));
    return hits.filter((h) => (h.kind === 'memory' ? served.has(String(h.ref)) : visible.has(Number(h.ref))));
  }
}
