import { CampaignReader, PUBLIC_WITNESS } from '@app/campaign';
import { BuiltSection, ContextSection, DroppedEntry, SectionEntry, SectionInput } from '../context.types';
import { compactSnapshots, DEFAULT_SNAPSHOT_TOOLS, recentLine, roundAndPlace, secretMark } from '../recent-window';
import { oneLine } from '../format';
import { relativeDatesOf } from '../relative-dates';
import { clockOf } from '../story-dates';
import { TokenCounter } from '../token-counter.port';

/** Which tools' results are snapshots, per campaign (§5's configured snapshot-tools can extend the defaults). */
export interface SnapshotToolSource {
  toolsFor(campaignId: string): Promise<ReadonlySet<string>>;
}

export class StaticSnapshotTools implements SnapshotToolSource {
  private readonly tools: ReadonlySet<string>;
  constructor(tools: readonly string[] = DEFAULT_SNAPSHOT_TOOLS) {
    this.tools = new Set(tools);
  }
  async toolsFor(): Promise<ReadonlySet<string>> {
    return this.tools;
  }
}

export interface RecentOptions {
  /** CONTEXT_RECENT_MESSAGES: the window before any round has ended. */
  recentMessages: number;
  /** HOT_ROUNDS: the window once a round has ended. */
  hotRounds: number;
  /** Most messages a hot-rounds window reads (the budget trims further). */
  maxWindow?: number;
}

const MAX_WINDOW = 1000;

/**
 * Recent Messages (DESIGN §7): the last N messages, or the last HOT_ROUNDS rounds once a round has
 * ended; oldest first; the first system message pinned in front when it fell out; older results of
 * each snapshot tool compacted away and reported in `dropped`. Entry ref = message index.
 */
export class RecentSection implements ContextSection {
  readonly key = 'recent' as const;
  readonly title = 'Recent Messages';

  constructor(
    private readonly reader: Pick<CampaignReader, 'window'>,
    private readonly counter: TokenCounter,
    private readonly options: RecentOptions,
    private readonly snapshotTools: SnapshotToolSource = new StaticSnapshotTools(),
  ) {}

  async build({ request, snapshot, audience }: SectionInput): Promise<BuiltSection> {
    const round = snapshot.state.round;
    const byRounds = round > 1;
    const window = await this.reader.window(request.campaignId, {
      limit: byRounds ? (this.options.maxWindow ?? MAX_WINDOW) : this.options.recentMessages,
      fromRound: byRounds ? Math.max(1, round - this.options.hotRounds + 1) : undefined,
      // §8: a viewer sees what it witnessed, the public view public messages; only the dm sees everything.
      seenBy: audience?.witness ?? (audience?.dm ? undefined : PUBLIC_WITNESS),
      at: snapshot.horizon,
    });
    const tools = await this.snapshotTools.toolsFor(request.campaignId);
    const { kept, compacted } = compactSnapshots(window.messages, window.toolNames, tools);
    const entry = (m: (typeof kept)[number]): SectionEntry => {
      const body = oneLine(m.content);
      return {
        ref: String(m.index),
        createdAt: m.at,
        group: roundAndPlace(snapshot.state, m),
        // The line carries no date: "yesterday" is followed by the story date it meant.
        text: recentLine(
          m,
          window.toolNames,
          // §8 secrets are marked in every view (a player's model must not blurt out a whisper).
          secretMark(snapshot.state, m),
          relativeDatesOf(body, m, clockOf(snapshot.state)),
          // §8: a player's or NPC's lines carry no message numbers (no holes); the dm's do.
          !audience?.viewer || audience.dm,
        ),
        body,
      };
    };
    const entries = [...(window.pinned ? [entry(window.pinned)] : []), ...kept.map(entry)];
    const removed = compacted.map(entry);
    await this.counter.warm?.(removed.map((e) => `${e.text}\n`));
    const dropped: DroppedEntry[] = removed.map((e) => ({
      section: this.key,
      ref: e.ref,
      tokens: this.counter.count(`${e.text}\n`),
      reason: 'compacted',
    }));
    return { key: this.key, title: this.title, entries, dropped };
  }
}
