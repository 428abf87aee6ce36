import type { CampaignReader } from '@app/campaign';
import { MemoryReader } from '@app/memory';
import { BuiltSection, ContextSection, SectionInput } from '../context.types';
import { placeOf } from '../viewer-place';
import { memoryEntries } from './memory-section';

/** NPC Memory: for each NPC now at the current location (by name), its last N memories. */
export class NpcSection implements ContextSection {
  readonly key = 'npc' as const;
  readonly title = 'NPC Memory';
  constructor(
    private readonly memories: MemoryReader,
    private readonly campaigns: Pick<CampaignReader, 'messagesByIndex'>,
  ) {}

  async build({ request, snapshot, audience }: SectionInput): Promise<BuiltSection | null> {
    const here = placeOf(snapshot.state, audience);
    const present = Object.values(snapshot.state.npcs)
      .filter((n) => here !== null && n.locationId === here)
      .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    const entries = [];
    for (const npc of present)
      entries.push(
        ...(await memoryEntries(
          await this.memories.latest(
            request.campaignId,
            'npc',
            npc.id,
            request.limit,
            audience?.witness ?? undefined,
            snapshot.horizon,
          ),
          this.campaigns,
          { request, snapshot },
        )),
      );
    return { key: this.key, title: this.title, entries };
  }
}
