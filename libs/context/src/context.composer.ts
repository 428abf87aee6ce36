import { CampaignSnapshot } from '@app/campaign';
import { AgentKind, BuiltSection, ContextRequest, ContextSection, DroppedEntry, SECTION_ORDER, SectionKey } from './context.types';
import { TokenCounter } from './token-counter.port';

/** Sections each agent gets when `include=` does not say (DESIGN §8). */
export const PRESETS: Record<AgentKind, SectionKey[]> = {
  narrative: ['location', 'npc', 'world'],
  dm: ['bible', 'glossary', 'digest', 'previously', 'location', 'npc', 'world', 'recall', 'recent'],
  player: ['bible', 'glossary', 'hud', 'digest', 'previously', 'location', 'npc', 'world', 'recall', 'recent'],
  npc: ['bible', 'glossary', 'hud', 'digest', 'previously', 'location', 'npc', 'world', 'recall', 'recent'],
  agent: ['recent', 'state', 'digest'],
};

/** Over budget, entries go in this order; sections not listed are never dropped. */
const DROP_ORDER: SectionKey[][] = [['recent'], ['recall'], ['location', 'npc', 'world']];

export interface ComposedSection extends BuiltSection {
  tokens: number;
}

export interface ComposedContext {
  version: number;
  processedVersion: number;
  request: ContextRequest;
  sections: ComposedSection[];
  budget: number | null;
  used: number;
  dropped: DroppedEntry[];
  overBudget: boolean;
  extra: Record<string, unknown>;
}

/** The one context composer: picks sections, counts tokens, enforces the budget, reports drops. */
export class ContextComposer {
  private readonly table = new Map<SectionKey, ContextSection>();

  constructor(
    private readonly counter: TokenCounter,
    sections: ContextSection[],
  ) {
    for (const s of sections) this.table.set(s.key, s);
  }

  has(key: SectionKey): boolean {
    return this.table.has(key);
  }

  async compose(request: ContextRequest, snapshot: CampaignSnapshot, budget: number | null): Promise<ComposedContext> {
    const wanted = new Set(request.include ?? PRESETS[request.agent]);
    const keys = SECTION_ORDER.filter((k) => wanted.has(k) && this.table.has(k));
    const built = await Promise.all(keys.map((k) => this.table.get(k)!.build({ request, snapshot })));
    const present = built.filter((s): s is BuiltSection => s !== null);
    const sections = present.filter((s) => !s.omitted).map((s) => this.measure(s));
    const dropped: DroppedEntry[] = sections.flatMap((s) => s.dropped ?? []);
    let used = sum(sections);
    if (budget !== null) used = this.fit(sections, budget, dropped);
    const extra = Object.assign({}, ...present.map((s) => s.extra ?? {}));
    return { version: snapshot.state.version, processedVersion: snapshot.processedVersion, request, sections, budget, used, dropped, overBudget: budget !== null && used > budget, extra };
  }

  private measure(s: BuiltSection): ComposedSection {
    for (const e of s.entries) e.tokens = this.counter.count(`${e.text}\n`);
    return { ...s, tokens: this.sectionTokens(s) };
  }

  private sectionTokens(s: BuiltSection): number {
    if (s.entries.length === 0) return 0;
    const heading = s.inline ? 0 : this.counter.count(`## ${s.title}\n`);
    return heading + s.entries.reduce((n, e) => n + (e.tokens ?? 0), 0);
  }

  /** Drops entries in the stated order until the sections fit; returns the tokens used. */
  private fit(sections: ComposedSection[], budget: number, dropped: DroppedEntry[]): number {
    let used = sum(sections);
    for (const group of DROP_ORDER) {
      const members = sections.filter((s) => group.includes(s.key));
      while (used > budget) {
        const victim = pickVictim(members);
        if (!victim) break;
        const [entry] = victim.section.entries.splice(victim.index, 1);
        const before = victim.section.tokens;
        victim.section.tokens = this.sectionTokens(victim.section);
        used -= before - victim.section.tokens;
        dropped.push({ section: victim.section.key, ref: entry.ref, tokens: entry.tokens ?? 0, reason: 'budget' });
      }
    }
    return used;
  }
}

/** Recent and memories lose their oldest entry first; recall (ranked best first) its lowest rank. */
function pickVictim(members: ComposedSection[]): { section: ComposedSection; index: number } | null {
  let best: { section: ComposedSection; index: number; at: string } | null = null;
  for (const section of members) {
    if (section.entries.length === 0) continue;
    if (section.key === 'recall') return { section, index: section.entries.length - 1 };
    const at = section.entries[0].createdAt ?? '';
    if (!best || at < best.at) best = { section, index: 0, at };
  }
  return best;
}

const sum = (sections: ComposedSection[]) => sections.reduce((n, s) => n + s.tokens, 0);
