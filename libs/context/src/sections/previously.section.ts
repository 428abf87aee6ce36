import { PUBLIC_WITNESS, viewerKey } from '@app/campaign';
import { LayersReader, PUBLIC_SUMMARY_KEY } from '@app/memory';
import { BuiltSection, ContextSection, SectionInput } from '../context.types';
import { oneLine } from '../format';

/**
 * Previously (DESIGN §8): the rolling summary of what is no longer hot. A player reads its own (perRoleMemory);
 * without perRoleMemory, and for NPCs, a viewer has none; everyone else reads the dm's.
 */
export class PreviouslySection implements ContextSection {
  readonly key = 'previously' as const;
  readonly title = 'Previously';
  constructor(private readonly layers: LayersReader) {}

  async build({ request, snapshot, audience }: SectionInput): Promise<BuiltSection | null> {
    const empty = { key: this.key, title: this.title, entries: [] };
    let key = '*';
    // §8 public view: the summary over public messages only.
    if (audience?.witness === PUBLIC_WITNESS) key = PUBLIC_SUMMARY_KEY;
    else if (audience?.witness) {
      if (audience.viewer?.kind !== 'player' || !snapshot.state.settings.perRoleMemory) return empty;
      key = viewerKey('player', audience.viewer.id);
    }
    const summary = await this.layers.latestSummary(request.campaignId, key, snapshot.horizon);
    if (!summary) return empty;
    return {
      ...empty,
      entries: [
        { ref: `through:${summary.throughMessageIndex}`, createdAt: summary.createdAt, text: oneLine(summary.summary) },
      ],
    };
  }
}
