import { LayersReader } from '@app/memory';
import { BuiltSection, ContextSection, SectionInput } from '../context.types';
import { oneLine } from '../format';

/**
 * Glossary (DESIGN §8): coined terms and the DM's, alphabetical; a viewer only gets terms coined in messages it
 * witnessed.
 */
export class GlossarySection implements ContextSection {
  readonly key = 'glossary' as const;
  readonly title = 'Glossary';
  constructor(private readonly layers: LayersReader) {}

  async build({ request, snapshot, audience }: SectionInput): Promise<BuiltSection | null> {
    const terms = await this.layers.glossary(request.campaignId, snapshot.state.glossary ?? {}, {
      viewer: audience?.witness,
      publicOnly: !audience?.dm,
      at: snapshot.horizon,
    });
    return {
      key: this.key,
      title: this.title,
      entries: terms.map((t) => ({
        ref: t.term,
        text: `- ${oneLine(t.term)}: ${oneLine(t.definition)}`,
        // Coined then; the composer moves it to the newest Recent Message that uses the term (§13).
        ...(t.createdAt ? { usedAt: t.createdAt } : {}),
      })),
    };
  }
}
