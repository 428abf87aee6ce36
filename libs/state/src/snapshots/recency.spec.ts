import { ageOf, recency } from './recency';

describe('recency wording', () => {
  const now = new Date('2026-01-01T00:10:00Z');

  it('reads ticks with their seconds', () => {
    expect(recency(ageOf(100, '', 102, now), 10, true)).toBe('2 ticks ago (20 seconds)');
    expect(recency(ageOf(100, '', 102, now), 10)).toBe('2 ticks ago');
    expect(recency(ageOf(101, '', 102, now), 10, true)).toBe('1 tick ago (10 seconds)');
    expect(recency(ageOf(102, '', 102, now), 10, true)).toBe('just now');
  });

  it('falls back to the wall clock when a tick is missing', () => {
    expect(recency(ageOf(null, '2026-01-01T00:09:15Z', 102, now), 10, true)).toBe('45 seconds ago');
    expect(recency(ageOf(100, '2026-01-01T00:07:00Z', null, now), 10)).toBe('3 minutes ago');
    expect(recency(ageOf(null, '2026-01-01T00:09:59Z', null, now), 10)).toBe('1 second ago');
    expect(recency(ageOf(null, '2026-01-01T00:10:00Z', null, now), 10)).toBe('just now');
  });
});
