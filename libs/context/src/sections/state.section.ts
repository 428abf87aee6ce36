import { Clock } from '@app/common';
import { NOT_LOGGED_IN, renderGameState, SnapshotStore, STATE_TITLE } from '@app/state';
import { BuiltSection, ContextSection, SectionInput } from '../context.types';
import { TokenCounter } from '../token-counter.port';

/** Current Game State (DESIGN §5): the bound account's tool snapshots, each with its age. */
export class StateSection implements ContextSection {
  readonly key = 'state' as const;
  readonly title = STATE_TITLE;
  constructor(
    private readonly snapshots: SnapshotStore,
    private readonly counter: TokenCounter,
    private readonly clock: Clock,
    private readonly options: { tickSeconds: number; maxTokens: number },
  ) {}

  async build({ request, snapshot }: SectionInput): Promise<BuiltSection | null> {
    // §10: snapshots are a cache of the game, not history: an as-of context leaves the section out and says so.
    if (!snapshot.horizon.current)
      return {
        key: this.key,
        title: this.title,
        entries: [],
        omitted: true,
        dropped: [{ section: this.key, ref: this.key, tokens: 0, reason: 'not-historical' }],
      };
    const account = await this.snapshots.resolveAccount(request.campaignId, {
      account: request.account,
      agentId: request.agentId,
    });
    // §8: a game without accounts has no tools to log in with: no section rather than an instruction it cannot follow.
    if (!account && !(await this.snapshots.hasAccounts(request.campaignId))) return null;
    // The whole section is that one line, without a heading.
    if (!account)
      return {
        key: this.key,
        title: this.title,
        inline: true,
        entries: [{ ref: 'not-logged-in', text: NOT_LOGGED_IN }],
      };
    const [snapshots, rules] = await Promise.all([
      this.snapshots.views(request.campaignId, account.account),
      this.snapshots.rules(request.campaignId),
    ]);
    const r = renderGameState({
      snapshots,
      rules,
      tick: request.tick ?? null,
      now: this.clock.now(),
      tickSeconds: this.options.tickSeconds,
      maxTokens: this.options.maxTokens,
      count: (t) => this.counter.count(t),
    });
    return {
      key: this.key,
      title: r.title,
      entries: r.entries,
      dropped: r.shortened.map((s) => ({ section: this.key, ref: s.ref, tokens: s.tokens, reason: 'budget' as const })),
      extra: { state: { account: account.account, agentId: account.agentId, stale: r.stale } },
    };
  }
}
