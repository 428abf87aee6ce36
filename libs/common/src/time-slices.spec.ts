import { inTimedSlices } from './time-slices';

/** Busy-waits `ms` (a slice's work, on the event loop). */
const spin = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('inTimedSlices (DESIGN §13: large writes in bounded slices)', () => {
  it('covers every item once, in order, in consecutive slices', async () => {
    const seen: [number, number][] = [];
    await inTimedSlices(1_000, { first: 7 }, async (lo, hi) => void seen.push([lo, hi]));
    expect(seen[0]).toEqual([0, 7]);
    seen.forEach(([lo], i) => expect(lo).toBe(i === 0 ? 0 : seen[i - 1][1]));
    expect(seen[seen.length - 1][1]).toBe(1_000);
  });

  it('runs a batch that fits the first slice at once, without giving the loop back', async () => {
    let turns = 0;
    const ticker = setImmediate(() => turns++);
    await inTimedSlices(3, { first: 10 }, async (lo, hi) => expect([lo, hi]).toEqual([0, 3]));
    expect(turns).toBe(0);
    clearImmediate(ticker);
    await inTimedSlices(0, { first: 10 }, async () => {
      throw new Error('no items, no step');
    });
  });

  it('sizes slices by the pace of the last one, within min and max, and gives the loop back between them', async () => {
    const sizes: number[] = [];
    let turns = 0;
    const tick = () => {
      turns++;
      ticker = setImmediate(tick);
    };
    let ticker = setImmediate(tick);
    // 1 ms an item, a slice aims at 4 ms: slices shrink from 20 to about 4 items.
    await inTimedSlices(60, { first: 20, targetMs: 4, max: 30 }, async (lo, hi) => {
      sizes.push(hi - lo);
      spin(hi - lo);
    });
    clearImmediate(ticker);
    expect(sizes[0]).toBe(20);
    expect(Math.max(...sizes.slice(1))).toBeLessThanOrEqual(8);
    expect(turns).toBeGreaterThanOrEqual(sizes.length - 1);
    // Fast items: a slice grows, at most twofold each time, up to max.
    const grown: number[] = [];
    await inTimedSlices(500, { first: 5, max: 40, targetMs: 1_000 }, async (lo, hi) => void grown.push(hi - lo));
    expect(grown.slice(0, 4)).toEqual([5, 10, 20, 40]);
    expect(Math.max(...grown)).toBe(40);
  });
});
