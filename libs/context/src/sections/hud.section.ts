import { notFound } from '@app/common';
import { renderHud } from '@app/state';
import { BuiltSection, ContextSection, SectionInput } from '../context.types';
import { TokenCounter } from '../token-counter.port';

/** HUD (DESIGN §6): one inline line of the viewing player's stats, never dropped for budget. */
export class HudSection implements ContextSection {
  readonly key = 'hud' as const;
  readonly title = 'HUD';
  constructor(
    private readonly counter: TokenCounter,
    private readonly maxTokens: number,
  ) {}

  async build({ request, snapshot }: SectionInput): Promise<BuiltSection | null> {
    const viewer = request.viewer;
    if (viewer === undefined) return null;
    const player = snapshot.state.players?.[viewer];
    if (!player) {
      if (snapshot.state.npcs[viewer]) return null;
      throw notFound('VIEWER_NOT_FOUND', `viewer ${viewer} is neither a player nor an NPC of this campaign`);
    }
    if (player.stats.length === 0) return null;
    const hud = renderHud(player.stats, this.maxTokens, (t) => this.counter.count(t));
    return {
      key: this.key,
      title: this.title,
      inline: true,
      entries: [{ ref: viewer, text: hud.text }],
      dropped: hud.dropped.map((d) => ({ section: this.key, ref: d.ref, tokens: d.tokens, reason: 'budget' as const })),
    };
  }
}
