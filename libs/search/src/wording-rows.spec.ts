import { CORRECTION_ROWS, wordingOfRow, wordingRow } from './wording-rows';

describe('wording rows (behind the search port)', () => {
  it('keeps the row ids of earlier releases: a memory version as is, a correction above 2^30', () => {
    expect(wordingRow({ source: 'memory', version: 7 })).toBe(7);
    expect(wordingRow({ source: 'correction', version: 12 })).toBe(2 ** 30 + 12);
    expect(CORRECTION_ROWS).toBe(2 ** 30);
  });

  it('gives back the wording a row id holds', () => {
    for (const w of [
      { source: 'memory' as const, version: 1 },
      { source: 'memory' as const, version: CORRECTION_ROWS - 1 },
      { source: 'correction' as const, version: 0 },
      { source: 'correction' as const, version: 99_999 },
    ])
      expect(wordingOfRow(wordingRow(w))).toEqual(w);
  });
});
