import type { CampaignReader } from '@app/campaign';
import { MemoryReader } from '@app/memory';
import { BuiltSection, ContextSection, SectionInput } from '../context.types';
import { memoryEntries } from './memory-section';

/** World Memory: the last N world memories. */
export class WorldSection implements ContextSection {
  readonly key = 'world' as const;
  readonly title = 'World Memory';
  constructor(
    private readonly memories: MemoryReader,
    private readonly campaigns: Pick<CampaignReader, 'messagesByIndex'>,
  ) {}

  async build({ request, snapshot, audience }: SectionInput): Promise<BuiltSection | null> {
    const items = await this.memories.latest(
      request.campaignId,
      'world',
      'world',
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
