import { CampaignState, playerLocation } from '@app/campaign';
import { placeOf } from '../viewer-place';
import { Audience, BuiltSection, ContextSection, DroppedEntry, SectionEntry, SectionInput } from '../context.types';
import { oneLine } from '../format';
import { TokenCounter } from '../token-counter.port';

/**
 * Scene (DESIGN §8 "What makes a context pasteable"): where the viewer is and what stands open, from the state at the
 * context's version — round and act, the location (name, danger level), who is there, active quests with each objective
 * done or open, and the completed quests' names. Never dropped by the composer; bounded by SCENE_MAX_TOKENS: completed
 * quests go first, then active quests from the last, each reported. A player sees the party's location, an NPC its own.
 */
export class SceneSection implements ContextSection {
  readonly key = 'scene' as const;
  readonly title = 'Scene';

  constructor(
    private readonly counter: TokenCounter,
    private readonly maxTokens: number,
  ) {}

  async build({ snapshot, audience }: SectionInput): Promise<BuiltSection | null> {
    const state = snapshot.state;
    const npcViewer = audience?.viewer?.kind === 'npc' ? state.npcs[audience.viewer.id] : undefined;
    const here = npcViewer ? npcViewer.locationId : placeOf(state, audience);
    const entries: SectionEntry[] = [
      ...youAre(state, audience?.dm ? null : audience?.viewer),
      {
        ref: 'round',
        text: `Round ${state.round}${state.currentActId ? ` · act ${oneLine(state.currentActId)}` : ''}`,
      },
    ];
    const location = here ? state.locations[here] : undefined;
    if (location) {
      entries.push({
        ref: `location:${location.id}`,
        text: `Location: ${oneLine(location.name)}${location.dangerLevel ? ` (danger ${location.dangerLevel})` : ''}`,
      });
    }
    const present = here ? presentAt(state, here, npcViewer?.id) : [];
    if (present.length) entries.push({ ref: 'present', text: `Present: ${present.join(', ')}` });
    // §8 split parties: the players where the viewer is (each by its own location, else the party's).
    const party = playersAt(state, here);
    if (party.length && here !== null) entries.push({ ref: 'party', text: `Party: ${party.join(', ')}` });
    if (!audience?.viewer) entries.push(...whereIsEveryone(state));
    const quests = Object.values(state.quests);
    for (const q of quests.filter((x) => !x.completed)) {
      const objectives = q.objectives.map((o) => `${o.completed ? '[x]' : '[ ]'} ${oneLine(o.name)}`).join('; ');
      entries.push({ ref: `quest:${q.id}`, text: `Quest: ${oneLine(q.name)}${objectives ? ` — ${objectives}` : ''}` });
    }
    for (const q of quests.filter((x) => x.completed))
      entries.push({ ref: `completed:${q.id}`, text: `Completed quest: ${oneLine(q.name)}` });
    return { key: this.key, title: this.title, entries, dropped: this.bound(entries) };
  }

  /**
   * Drops completed quests (the oldest listed last goes first), then active quests from the last, until the section
   * fits.
   */
  private bound(entries: SectionEntry[]): DroppedEntry[] {
    const dropped: DroppedEntry[] = [];
    // Counted once and lowered per drop: recounting every entry per drop was quadratic in the quest log (645 ms for a
    // dm context at 1M seeded events, 878 quests).
    let tokens =
      this.counter.count(`## ${this.title}\n`) + entries.reduce((n, e) => n + this.counter.count(`${e.text}\n`), 0);
    const victim = () => {
      const completed = entries.findLastIndex((e) => e.ref.startsWith('completed:'));
      if (completed > 0) return completed;
      const quest = entries.findLastIndex((e) => e.ref.startsWith('quest:'));
      return quest > 0 ? quest : -1;
    };
    while (tokens > this.maxTokens) {
      const i = victim();
      if (i === -1) break;
      const [gone] = entries.splice(i, 1);
      const cost = this.counter.count(`${gone.text}\n`);
      tokens -= cost;
      dropped.push({ section: this.key, ref: gone.ref, tokens: cost, reason: 'budget' });
    }
    return dropped;
  }
}

/** §8: a player's or NPC's Scene opens with whose view it is, `You are Aria (player).`; the dm's has no such line. */
function youAre(state: CampaignState, viewer?: Audience['viewer']): SectionEntry[] {
  if (!viewer) return [];
  const who = viewer.kind === 'player' ? state.players?.[viewer.id] : state.npcs[viewer.id];
  return [{ ref: 'viewer', text: `You are ${oneLine(who?.name ?? viewer.id)} (${viewer.kind}).` }];
}

/** Names of the players at `locationId`, sorted. */
function playersAt(state: CampaignState, locationId: string | null): string[] {
  return Object.values(state.players ?? {})
    .filter((p) => playerLocation(state, p) === locationId)
    .map((p) => oneLine(p.name))
    .sort((a, b) => a.localeCompare(b));
}

/** The dm's line per location where players are, once the party is split (`Players at The Old Crypt: Kael`). */
function whereIsEveryone(state: CampaignState): SectionEntry[] {
  const places = [...new Set(Object.values(state.players ?? {}).map((p) => playerLocation(state, p)))];
  if (places.length < 2) return [];
  return places
    .map((id) => ({ id, name: id === null ? 'nowhere' : oneLine(state.locations[id]?.name ?? id) }))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(({ id, name }) => ({
      ref: `where:${id ?? ''}`,
      text: `Players at ${name}: ${playersAt(state, id).join(', ')}`,
    }));
}

/** NPCs at the location, by name (the viewing NPC itself left out: it knows it is there). */
function presentAt(state: CampaignState, locationId: string, self?: string): string[] {
  return Object.values(state.npcs)
    .filter((n) => n.locationId === locationId && n.id !== self)
    .map((n) => oneLine(n.name))
    .sort((a, b) => a.localeCompare(b));
}
