import { join } from 'node:path';
import { CitationResolver, citationsIn, codeCitations } from '../../../scripts/design-citations';

/**
 * Every `§N` the code cites resolves inside the repository (scripts/design-citations.ts says how): docs/design.md
 * is the design the code cites, so a section it lacks, a range past its end or a subsection name it does not hold
 * fails here.
 */
const ROOT = join(__dirname, '../../..');
const suite = process.env.TEST_DATABASE_URL ? describe.skip : describe;

suite('design citations (§N in the code resolve to docs/design.md)', () => {
  const resolver = new CitationResolver(ROOT);
  // This file's planted citations below are meant not to resolve.
  const cited = codeCitations(ROOT, [__filename]);

  it('finds the code’s citations (the scan itself works)', () => {
    expect(cited.length).toBeGreaterThan(300);
    expect(cited.some((c) => c.name === 'Who may read what')).toBe(true);
  });

  it('resolves every cited section, range and subsection name', () => {
    expect(cited.map((c) => resolver.unresolved(c)).filter(Boolean)).toEqual([]);
  });

  it('has the numbered sections §1–§15, in order', () => {
    expect([...resolver.page('docs/design.md').keys()]).toEqual(Array.from({ length: 15 }, (_, i) => `${i + 1}`));
  });

  it('reports a citation of a missing section, range end, subsection name or page heading', () => {
    const planted = citationsIn(
      [
        '// DESIGN §16: no such section',
        '// §13–17 ends past the last section',
        '// §10 "Time travel" is not a subsection of §10',
        '// docs/history/timelines-plan.md §1.9 is not a heading of the plan',
        '// DESIGN §8 "Who may read what" and docs/history/timelines-plan.md §1.3 resolve',
      ].join('\n'),
      'planted.ts',
    );
    expect(planted.map((c) => resolver.unresolved(c))).toEqual([
      expect.stringContaining('no section 16'),
      expect.stringContaining('no section 16'),
      expect.stringContaining('does not mention "Time travel"'),
      null,
      expect.stringContaining('no section 1.9 in docs/history/timelines-plan.md'),
      null,
      null,
    ]);
  });
});
