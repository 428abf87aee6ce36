import { CampaignState } from '../domain/state';

/** Bound on the cached states' total size (rows × their document lengths: a long campaign's is a few hundred KB). */
const DEFAULT_MAX_CHARS = 64 * 1024 * 1024;
/** Bound on the states as of past versions (kept apart: a sweep over versions must not evict the current ones). */
const DEFAULT_MAX_AS_OF_CHARS = 16 * 1024 * 1024;

interface Entry {
  state: CampaignState;
  timeline: number;
  chars: number;
}

/**
 * What a state costs to keep: the total length of its rows' documents, kept by whoever built the state
 * (`CampaignProjector.apply` adjusts the one it started from; a load sums what it read), so that nobody
 * serializes the aggregate to measure it.
 */
export const stateChars = new WeakMap<CampaignState, number>();

/**
 * Parsed campaign states by (campaign, timeline, version), least recently used first out. A state is a
 * pure fold of the game stream up to its version, so an entry is right on every replica and after a
 * projection rebuild; callers check the row's timeline and version (small columns) before using it, which
 * spares reads and writes assembling the state from its rows. A rewind (DESIGN §10) lowers the version and
 * bumps the timeline, so the pair, never the version alone, names a state. Only committed states go in.
 * States are shared: nobody may mutate them (frozen under NODE_ENV=test so that a test catches whoever tries).
 *
 * A second LRU holds states as of past versions (`CampaignReader.stateAt`), keyed by the kinds read too:
 * within a timeline the state at V never changes, so those entries need no invalidation but `dropCampaign`.
 */
export class CampaignStateCache {
  private readonly current = new Lru<Entry>();
  private readonly asOf = new Lru<Entry>();
  private readonly freeze = process.env.NODE_ENV === 'test';

  constructor(
    private readonly maxChars = DEFAULT_MAX_CHARS,
    private readonly maxAsOfChars = DEFAULT_MAX_AS_OF_CHARS,
  ) {}

  get(campaignId: string, timeline: number, version: number): CampaignState | null {
    const hit = this.current.get(campaignId);
    return hit && hit.timeline === timeline && hit.state.version === version ? hit.state : null;
  }

  /**
   * `chars`: what the state costs to keep (`stateChars`). A later timeline always replaces; within one, an
   * older version arriving late never replaces a newer one.
   */
  put(state: CampaignState, timeline: number, chars: number): void {
    const prev = this.current.peek(state.id);
    if (prev && prev.timeline > timeline) return;
    if (prev && prev.timeline === timeline && prev.state.version >= state.version) return;
    this.current.delete(state.id);
    if (chars > this.maxChars) return;
    if (this.freeze) deepFreeze(state);
    this.current.set(state.id, { state, timeline, chars }, this.maxChars);
  }

  getAsOf(campaignId: string, timeline: number, version: number, kinds: readonly string[]): CampaignState | null {
    return this.asOf.get(asOfKey(campaignId, timeline, version, kinds))?.state ?? null;
  }

  putAsOf(state: CampaignState, timeline: number, kinds: readonly string[], chars: number): void {
    if (chars > this.maxAsOfChars) return;
    if (this.freeze) deepFreeze(state);
    this.asOf.set(asOfKey(state.id, timeline, state.version, kinds), { state, timeline, chars }, this.maxAsOfChars);
  }

  /** After a rewind or a delete: nothing of the campaign is served again from here. */
  dropCampaign(campaignId: string): void {
    this.current.delete(campaignId);
    this.asOf.deleteWhere((key) => key.startsWith(`${campaignId}\u0000`));
  }
}

const asOfKey = (id: string, timeline: number, version: number, kinds: readonly string[]) =>
  `${id}\u0000${timeline}\u0000${version}\u0000${[...kinds].sort().join(',')}`;

/** Entries by key, least recently used first, bounded by the sum of their `chars`. */
class Lru<E extends { chars: number }> {
  private readonly entries = new Map<string, E>();
  private chars = 0;

  get(key: string): E | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit;
  }

  peek(key: string): E | undefined {
    return this.entries.get(key);
  }

  set(key: string, entry: E, max: number): void {
    this.delete(key);
    this.entries.set(key, entry);
    this.chars += entry.chars;
    for (const [k] of this.entries) {
      if (this.chars <= max) break;
      this.delete(k);
    }
  }

  delete(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.chars -= e.chars;
  }

  deleteWhere(test: (key: string) => boolean): void {
    for (const key of [...this.entries.keys()]) if (test(key)) this.delete(key);
  }
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}
