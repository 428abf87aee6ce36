import { CampaignReader } from '@app/campaign';
import { parseQuery } from './query/query-language';
import { SearchFilters, SearchHit, SearchIndex } from './search-index.port';

/** Campaign search (DESIGN §7): parse the user's query (400 INVALID_QUERY), check the campaign (404), rank. */
export class SearchService {
  constructor(
    private readonly campaigns: CampaignReader,
    private readonly index: SearchIndex,
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
    const { horizon } = await this.campaigns.snapshot(campaignId, asOf);
    return this.index.search(campaignId, query, { ...rest, at: horizon });
  }
}
