import { SectionEntry } from './context.types';
import { groupHeader, layoutEntries, layoutTokens, listTokensAfterDrop } from './text-layout';

/** Deterministic sequence in [0, 1) (Park–Miller). */
const lcg = (seed: number) => () => (seed = (seed * 16807) % 2147483647) / 2147483647;

const headerTokens = (header: string) => header.length; // any function of the header text will do
const counted = (entries: SectionEntry[], timeline: boolean) =>
  layoutEntries(entries, timeline).reduce(
    (n, l) => n + ('entry' in l ? (l.entry.tokens ?? 0) : headerTokens(l.header)),
    0,
  );

describe('layoutTokens', () => {
  it('counts exactly what layoutEntries prints: one header per run of a group, timeline order by seq', () => {
    const random = lcg(7);
    for (let round = 0; round < 300; round++) {
      const n = Math.floor(random() * 12);
      const entries: SectionEntry[] = Array.from({ length: n }, (_, i) => ({
        ref: `e${i}`,
        text: `entry ${i}`,
        tokens: 1 + Math.floor(random() * 20),
        group: random() < 0.2 ? undefined : `round ${1 + Math.floor(random() * 3)}`,
        seq: random() < 0.2 ? undefined : Math.floor(random() * 50),
      }));
      for (const timeline of [false, true])
        expect(layoutTokens(entries, timeline, headerTokens)).toBe(counted(entries, timeline));
    }
  });

  it('prints a header again when its group comes back after another', () => {
    const e = (ref: string, group: string | undefined, seq?: number): SectionEntry => ({
      ref,
      text: ref,
      tokens: 1,
      group,
      seq,
    });
    const entries = [e('a', 'x', 3), e('b', 'y', 2), e('c', 'x', 1)];
    // Stored order: x, y, x → three headers; timeline order (c, b, a): x, y, x → three headers too.
    expect(layoutTokens(entries, false, headerTokens)).toBe(3 + 3 * groupHeader('x').length);
    expect(layoutTokens([e('a', 'x', 1), e('b', 'x', 2), e('c', undefined)], true, headerTokens)).toBe(
      3 + groupHeader('x').length,
    );
  });
});

describe('listTokensAfterDrop', () => {
  it('gives what a recount of the list layout gives after any run of entries leaves it', () => {
    const random = lcg(11);
    for (let round = 0; round < 500; round++) {
      const n = 1 + Math.floor(random() * 12);
      const entries: SectionEntry[] = Array.from({ length: n }, (_, i) => ({
        ref: `e${i}`,
        text: `entry ${i}`,
        tokens: 1 + Math.floor(random() * 20),
        group: random() < 0.2 ? undefined : `round ${1 + Math.floor(random() * 3)}`,
      }));
      const before = layoutTokens(entries, false, headerTokens);
      const index = Math.floor(random() * n);
      const gone = entries.splice(index, 1 + Math.floor(random() * (n - index)));
      const after = listTokensAfterDrop(entries, index, gone, before, headerTokens);
      expect(after).toBe(layoutTokens(entries, false, headerTokens));
    }
  });
});
