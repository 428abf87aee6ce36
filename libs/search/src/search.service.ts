import { CampaignReader } from '@app/campaign';
import { parseQuery } from './query/query-language';
import { SearchFilters, SearchHit, SearchIndex } from './search-index.port';

/** Campaign search (DESIGN §7): parse the user's query (400 INVALID_QUERY), check the campaign (404), rank. */
export class SearchService {
  constructor(
    private readonly campaigns: CampaignReader,
    private readonly index: SearchIndex,
  ) {}

  async search(campaignId: string, q: string, filters: SearchFilters): Promise<SearchHit[]> {
    const query = parseQuery(q);
    await this.campaigns.get(campaignId);
    return this.index.search(campaignId, query, filters);
  }
}
