import type { CampaignReader } from '@app/campaign';
import { MemoryReader } from '@app/memory';
import { BuiltSection, ContextSection, SectionInput } from '../context.types';
import { placeOf } from '../viewer-place';
import { memoryEntries } from './memory-section';

/** Recent Location Memory: the last N memories of the current location. */
export class LocationSection implements ContextSection {
  readonly key = 'location' as const;
  readonly title = 'Recent Location Memory';
  constructor(
    private readonly memories: MemoryReader,
    private readonly campaigns: Pick<CampaignReader, 'messagesByIndex'>,
  ) {}

  async build({ request, snapshot, audience }: SectionInput): Promise<BuiltSection | null> {
    const here = placeOf(snapshot.state, audience);
    if (!here) return { key: this.key, title: this.title, entries: [] };
    const items = await this.memories.latest(
      request.campaignId,
      'location',
      here,
      request.limit,
      audience?.witness ?? undefined,
      snapshot.horizon,
    );
    return {
      key: this.key,
      title: this.title,
      entries: await memoryEntries(items, this.campaigns, { request, snapshot }),
    };
  }
}
