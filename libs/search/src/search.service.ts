import { CampaignReader } from '@app/campaign';
import { MemoryHorizon, MemoryReader } from '@app/memory';
import { parseQuery } from './query/query-language';
import { SearchFilters, SearchHit, SearchIndex } from './search-index.port';

/** Rounds of over-fetching memory hits whose other wordings (§10) are not served: each asks twice as many. */
const WORDING_ROUNDS = 4;

/**
 * The memory hits served at the horizon (DESIGN §10): the index keeps a row per wording (recorded, revised, corrected)
 * and of memories deleted or withheld since; a hit stays only when its row is the memory's wording then.
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
  return hits.filter((h) => h.kind !== 'memory' || wordings.get(String(h.ref)) === h.seq);
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
  async search(
    campaignId: string,
    q: string,
    filters: Omit<SearchFilters, 'at'> & { asOf?: number },
  ): Promise<SearchHit[]> {
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
}
