import { CampaignState } from '../domain/state';

/** Bound on the cached state documents' total JSON size (a long campaign's document is a few hundred KB). */
const DEFAULT_MAX_CHARS = 64 * 1024 * 1024;

interface Entry {
  state: CampaignState;
  chars: number;
}

/**
 * Parsed campaign states by (campaign, version), least recently used first out. A state is a pure
 * fold of the game stream up to its version, so an entry is right on every replica and after a
 * projection rebuild; callers check the row's version (one indexed column) before using it, which
 * spares reads and writes parsing a document that grows with the campaign (`npm run bench`, context
 * read vs history size). Only committed states go in. States are shared: nobody may mutate them
 * (frozen under NODE_ENV=test so that a test catches whoever tries).
 */
export class CampaignStateCache {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;
  private readonly freeze = process.env.NODE_ENV === 'test';

  constructor(private readonly maxChars = DEFAULT_MAX_CHARS) {}

  /** The cached state of the campaign at (timeline, version) — a rewind reuses version numbers (§10). */
  get(campaignId: string, timeline: number, version: number): CampaignState | null {
    const hit = this.entries.get(campaignId);
    if (!hit || hit.state.version !== version || timelineOf(hit.state) !== timeline) return null;
    this.entries.delete(campaignId);
    this.entries.set(campaignId, hit);
    return hit.state;
  }

  /** `chars`: the length of the state's JSON document, the measure of what it costs to keep. */
  put(state: CampaignState, chars: number): void {
    const prev = this.entries.get(state.id);
    // Newer versions replace older ones within a timeline; a later timeline replaces any version (a rewind goes
    // back), and a late put from an earlier one is dropped.
    if (
      prev &&
      (timelineOf(prev.state) > timelineOf(state) ||
        (timelineOf(prev.state) === timelineOf(state) && prev.state.version >= state.version))
    )
      return;
    this.drop(state.id);
    if (chars > this.maxChars) return;
    if (this.freeze) deepFreeze(state);
    this.entries.set(state.id, { state, chars });
    this.chars += chars;
    for (const [id] of this.entries) {
      if (this.chars <= this.maxChars) break;
      this.drop(id);
    }
  }

  /** Forgets the campaign (§10: after a rewind or a delete). */
  dropCampaign(campaignId: string): void {
    this.drop(campaignId);
  }

  private drop(campaignId: string): void {
    const e = this.entries.get(campaignId);
    if (!e) return;
    this.entries.delete(campaignId);
    this.chars -= e.chars;
  }
}

const timelineOf = (state: CampaignState) => state.timeline ?? 1;

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}
