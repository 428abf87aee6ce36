import { currentHorizon, emptyState } from '@app/campaign';
import { ContextComposer, DEFAULT_RECALL_SHARE } from './context.composer';
import { ContextSection as Section } from './context.types';
import { TokenCounter as Counter } from './token-counter.port';

/** These specs test the drop order itself: MIN_RECENT_MESSAGES off (its own spec sets it). */
const composerOf = (counter: Counter, sections: Section[], share = DEFAULT_RECALL_SHARE) =>
  new ContextComposer(counter, sections, share, 0, { countTrailer: false });
import {
  BuiltSection,
  ContextRequest,
  ContextSection,
  ContextSnapshot,
  SectionEntry,
  SectionKey,
} from './context.types';

const words = { count: (t: string) => (t.trim() ? t.trim().split(/\s+/).length : 0) };
const state = { ...emptyState('c'), version: 1 };
const snapshot: ContextSnapshot = { state, horizon: currentHorizon(state), processedVersion: 1 };
const request = (extra: Partial<ContextRequest> = {}): ContextRequest => ({
  campaignId: 'c',
  agent: 'dm',
  limit: 3,
  legacy: false,
  ...extra,
});

/** A section of `n` entries of `size` words each, refs `<key>0…`, createdAt ordered oldest first. */
function fixed(key: SectionKey, n: number, size: number, extra: Partial<BuiltSection> = {}): ContextSection {
  const entries = (): SectionEntry[] =>
    Array.from({ length: n }, (_, i) => ({
      ref: `${key}${i}`,
      createdAt: `2026-01-01T00:0${i}:00Z`,
      text: [...Array(size - 1).fill('w'), `${key}${i}`].join(' '),
    }));
  return { key, title: key, build: async () => ({ key, title: key, entries: entries(), ...extra }) };
}

/** A Recall hit of `size` words at `rank`. */
const hit = (ref: string, rank: number, size: number): SectionEntry => ({
  ref,
  rank,
  text: [...Array(size - 1).fill('w'), ref].join(' '),
});

describe('ContextComposer budget (DESIGN §8)', () => {
  // Heading "## x" counts 2 words; an entry of k words counts k.
  it('drops Recent oldest first, then Recall lowest rank, then memories oldest first; never the bible; drops add up to what was saved', async () => {
    const composer = composerOf(words, [
      fixed('bible', 1, 20),
      fixed('world', 2, 10),
      fixed('recall', 2, 10),
      fixed('recent', 3, 10),
    ]);
    const all = await composer.compose(request(), snapshot, 10_000);
    expect(all.used).toBe(22 + 22 + 22 + 32);
    const tight = await composer.compose(request(), snapshot, 40);
    expect(tight.dropped.map((d) => d.ref)).toEqual(['recent0', 'recent1', 'recent2', 'recall1', 'recall0', 'world0']);
    expect(tight.dropped.map((d) => d.tokens)).toEqual([10, 10, 12, 10, 12, 10]);
    expect(all.used - tight.dropped.reduce((n, d) => n + d.tokens, 0)).toBe(tight.used);
    expect(tight.used).toBe(34);
    expect(tight.overBudget).toBe(false);
  });

  it('says overBudget when the never-dropped sections alone do not fit', async () => {
    const composer = composerOf(words, [fixed('bible', 1, 60), fixed('recent', 2, 10)]);
    const c = await composer.compose(request(), snapshot, 50);
    expect(c.overBudget).toBe(true);
    expect(c.used).toBe(62);
    expect(c.dropped.map((d) => d.ref)).toEqual(['recent0', 'recent1']);
  });

  it('recall hits past its own limit give way first, but keep their share of the room they share with Recent', async () => {
    const sections = [fixed('recall', 6, 10, { limit: 2 }), fixed('recent', 6, 10)];
    const none = await composerOf(words, sections, 0).compose(request({ query: 'q' }), snapshot, 84);
    expect(none.dropped.map((d) => d.ref)).toEqual(['recall5', 'recall4', 'recall3', 'recall2']);
    const half = await composerOf(words, sections, 0.5).compose(request({ query: 'q' }), snapshot, 84);
    const kept = (c: typeof half, key: string) => c.sections.find((s) => s.key === key)!.entries.map((e) => e.ref);
    // The three extra hits kept (30 tokens) hold about half of what they and Recent (32) keep.
    expect(kept(half, 'recall')).toEqual(['recall0', 'recall1', 'recall2', 'recall3', 'recall4']);
    expect(kept(half, 'recent')).toEqual(['recent3', 'recent4', 'recent5']);
    expect(half.used).toBe(84);
  });

  it('drops at once the recall hits that could never fit, and still reports each of them, adding up', async () => {
    const sections = [fixed('recall', 40, 10, { limit: 2 }), fixed('recent', 3, 10)];
    const composer = composerOf(words, sections);
    const all = await composer.compose(request({ query: 'q' }), snapshot, 10_000);
    const tight = await composer.compose(request({ query: 'q' }), snapshot, 60);
    const kept = (key: string) => tight.sections.find((s) => s.key === key)?.entries.map((e) => e.ref) ?? [];
    // recall0…6 alone already hold 70 > 60 tokens: recall7…39 can never be served. Then the rules as ever: the
    // five extra hits (50) stay within the share of what they and Recent hold, so Recent goes, then Recall's tail.
    expect(kept('recall')).toEqual(['recall0', 'recall1', 'recall2', 'recall3', 'recall4']);
    expect(kept('recent')).toEqual([]);
    expect(tight.used).toBe(52);
    expect(tight.dropped).toHaveLength(38);
    expect(new Set(tight.dropped.map((d) => d.ref))).toEqual(
      new Set([...Array.from({ length: 35 }, (_, i) => `recall${i + 5}`), 'recent0', 'recent1', 'recent2']),
    );
    expect(tight.dropped.filter((d) => d.section === 'recall').every((d) => d.tokens === 10)).toBe(true);
    expect(all.used - tight.dropped.reduce((n, d) => n + d.tokens, 0)).toBe(tight.used);
  });

  it('a recall hit Recent Messages holds is left out, and comes back at its rank when the budget takes it from Recent', async () => {
    const recent: ContextSection = {
      key: 'recent',
      title: 'recent',
      build: async () => ({
        key: 'recent',
        title: 'recent',
        entries: ['10', '11', '12'].map((ref) => ({ ref, text: 'w w w w' })),
      }),
    };
    const recall: ContextSection = {
      key: 'recall',
      title: 'recall',
      after: true,
      build: async () => ({
        key: 'recall',
        title: 'recall',
        limit: 5,
        entries: ['3', '10', '7'].map((ref, i) => ({ ref, rank: i + 1, text: 'w w w w' })),
      }),
    };
    const composer = composerOf(words, [recent, recall]);
    const roomy = await composer.compose(request({ query: 'q' }), snapshot, 1000);
    const refs = (c: typeof roomy, key: string) => c.sections.find((s) => s.key === key)!.entries.map((e) => e.ref);
    expect(refs(roomy, 'recall')).toEqual(['3', '7']);
    expect(refs(roomy, 'recent')).toEqual(['10', '11', '12']);
    // recent 2+3×4 = 14, recall 2+2×4 = 10: over 20, Recent loses #10, whose hit returns to Recall (+4), then #11.
    const tight = await composer.compose(request({ query: 'q' }), snapshot, 20);
    expect(refs(tight, 'recent')).toEqual(['12']);
    expect(refs(tight, 'recall')).toEqual(['3', '10', '7']);
    expect(tight.dropped.map((d) => `${d.section}#${d.ref}`)).toEqual(['recent#10', 'recent#11']);
    expect(tight.used).toBe(20);
  });

  it('counts a group header once per run of its group, and the last entry of a group takes its header along', async () => {
    const day = (ref: string, seq: number, group: string, rank: number): SectionEntry => ({
      ref,
      seq,
      group,
      rank,
      text: 'w w w',
    });
    const recall: ContextSection = {
      key: 'recall',
      title: 'recall',
      build: async () => ({
        key: 'recall',
        title: 'recall',
        timeline: true,
        entries: [day('5', 5, 'round 2', 1), day('1', 1, 'round 1', 2), day('6', 6, 'round 2', 3)],
      }),
    };
    const composer = composerOf(words, [recall]);
    // "## recall" 2 + headers "### round 1" 3 + "### round 2" 3 + 3 entries × 3.
    const all = await composer.compose(request({ query: 'q' }), snapshot, 1000);
    expect(all.used).toBe(2 + 3 + 3 + 9);
    // Over 14: rank 3 goes (3 tokens, its group stays), then rank 2 with its header (3 + 3).
    const tight = await composer.compose(request({ query: 'q' }), snapshot, 10);
    expect(tight.dropped.map((d) => [d.ref, d.tokens])).toEqual([
      ['6', 3],
      ['1', 6],
    ]);
    expect(tight.used).toBe(8);
    expect(all.used - tight.dropped.reduce((n, d) => n + d.tokens, 0)).toBe(tight.used);
  });

  it('a shorter hit of lower rank fills the room a dropped longer one left; drops still add up', async () => {
    const entries = () => [hit('a', 1, 5), hit('b', 2, 10), hit('c', 3, 3), hit('d', 4, 4)];
    const recall: ContextSection = {
      key: 'recall',
      title: 'recall',
      build: async () => ({ key: 'recall', title: 'recall', entries: entries() }),
    };
    const composer = composerOf(words, [fixed('bible', 1, 5), recall]);
    const all = await composer.compose(request({ query: 'q' }), snapshot, 1000);
    // bible 2 + 5, recall 2 + 22: over 20, d, c and b go (lowest rank first), leaving 6 spare: c (3) comes back,
    // d (4) no longer fits.
    const tight = await composer.compose(request({ query: 'q' }), snapshot, 20);
    expect(tight.sections.find((s) => s.key === 'recall')!.entries.map((e) => e.ref)).toEqual(['a', 'c']);
    expect(tight.dropped.map((d) => d.ref)).toEqual(['d', 'b']);
    expect(tight.used).toBe(17);
    expect(all.used - tight.dropped.reduce((n, d) => n + d.tokens, 0)).toBe(tight.used);
  });

  it('no room goes back to Recall once the budget took a memory', async () => {
    const recall: ContextSection = {
      key: 'recall',
      title: 'recall',
      build: async () => ({ key: 'recall', title: 'recall', entries: [hit('a', 1, 3)] }),
    };
    // recall 5 + world 22 = 27 over 20: recall goes first (5), still over, so the memory goes (22): 20 are left,
    // room for a, which stays out.
    const c = await composerOf(words, [fixed('world', 1, 20), recall]).compose(request({ query: 'q' }), snapshot, 20);
    expect(c.dropped.map((d) => d.ref)).toEqual(['a', 'world0']);
    expect(c.used).toBe(0);
  });

  it('builds Recall last, seeing the other sections', async () => {
    let seen: string[] = [];
    const recall: ContextSection = {
      key: 'recall',
      title: 'Recalled',
      after: true,
      build: async ({ others }) => (
        (seen = (others ?? []).map((s) => s.key)),
        { key: 'recall', title: 'Recalled', entries: [] }
      ),
    };
    await composerOf(words, [recall, fixed('recent', 1, 1), fixed('glossary', 1, 1)]).compose(request(), snapshot, 100);
    expect(seen.sort()).toEqual(['glossary', 'recent']);
  });

  it('counts the text trailer in `used`: content is fitted to what the trailer leaves, the line is exact', async () => {
    const composer = new ContextComposer(
      words,
      [fixed('world', 3, 10), fixed('recent', 6, 10)],
      DEFAULT_RECALL_SHARE,
      0,
    );
    for (const budget of [50, 60, 80, 100, 150]) {
      const c = await composer.compose(request(), snapshot, budget);
      const content = c.sections.reduce((n, x) => n + x.tokens, 0);
      expect(c.trailer!.tokens).toBe(words.count(`\n${c.trailer!.line}\n`));
      expect(c.used).toBe(content + c.trailer!.tokens);
      expect(c.used).toBeLessThanOrEqual(budget);
      expect(c.trailer!.line).toMatch(
        new RegExp(`^<!-- context: ${c.used}/${budget} tokens; dropped ${c.dropped.length}`),
      );
    }
    // A §2 request has no trailer.
    expect((await composer.compose(request({ legacy: true }), snapshot, null)).trailer).toBeNull();
  });
});
