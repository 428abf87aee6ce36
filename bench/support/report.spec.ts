import { renderFigures } from './report';
import { percentile } from './stats';

describe('bench report', () => {
  it('prints scalars as a figure table, rows as aligned tables, and notes as bullets', () => {
    const text = renderFigures({
      'ratio (target ≥ 0.5)': 0.4567,
      runs: [
        { server: 'lorekeeper', 'req/s': 1234.5 },
        { server: 'raw', 'req/s': 20000 },
      ],
      notes: ['medians of alternating rounds'],
    });
    expect(text.split('\n')).toEqual([
      '  figure                value',
      '  --------------------  -----',
      '  ratio (target ≥ 0.5)  0.457',
      '  runs:',
      '  server       req/s',
      '  ----------  ------',
      '  lorekeeper   1,235',
      '  raw         20,000',
      '  * medians of alternating rounds',
    ]);
  });

  it('nests a sub-report (e.g. a profile) under its key', () => {
    expect(renderFigures({ profile: { 'sampled ms': 10, top: [{ fn: 'query', pct: 12.5 }] } })).toContain(
      '    top:\n    fn      pct\n    -----  ----\n    query  12.5',
    );
  });
});

describe('percentile', () => {
  it('uses the nearest rank, so p99 of 100 samples is the 99th smallest', () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(samples, 50)).toBe(50);
    expect(percentile(samples, 99)).toBe(99);
    expect(percentile([], 99)).toBeNaN();
  });
});
