import { Clock } from '@app/common';
import { buildDigest } from '@app/state';
import { BuiltSection, ContextSection, SectionInput } from '../context.types';
import { TokenCounter } from '../token-counter.port';

/** World State (DESIGN §6): the fact digest, injected only when the caller's copy is not current. */
export class DigestSection implements ContextSection {
  readonly key = 'digest' as const;
  readonly title = 'World State';
  constructor(
    private readonly counter: TokenCounter,
    private readonly clock: Clock,
    private readonly maxTokens: number,
  ) {}

  async build({ request, snapshot }: SectionInput): Promise<BuiltSection | null> {
    // §10: an as-of digest judges expiry at the time of its version, not now.
    const now = snapshot.horizon.at === null ? this.clock.now() : new Date(snapshot.horizon.at);
    const digest = buildDigest(Object.values(snapshot.state.facts ?? {}), now, this.maxTokens, (t) =>
      this.counter.count(t),
    );
    if (request.digestVersion === digest.version) {
      return {
        key: this.key,
        title: this.title,
        entries: [],
        omitted: true,
        extra: { digest: { version: digest.version, injected: false } },
      };
    }
    return {
      key: this.key,
      title: this.title,
      entries: digest.lines,
      dropped: digest.dropped.map((d) => ({
        section: this.key,
        ref: d.ref,
        tokens: d.tokens,
        reason: 'budget' as const,
      })),
      extra: { digest: { version: digest.version, injected: true } },
    };
  }
}
