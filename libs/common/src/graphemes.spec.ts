import { cutText, graphemePrefix, hasLoneSurrogate } from './graphemes';

describe('graphemePrefix', () => {
  it('never ends inside a surrogate pair, a combining sequence, a ZWJ emoji or a CR LF', () => {
    const texts = ['ab😀cd', 'e\u0301\u0301x', 'a👩‍👩‍👧b', 'a🇫🇷b', 'x\r\ny', 'Ame\u0301lie 😀😀'];
    const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
    for (const text of texts) {
      const graphemes = [...segmenter.segment(text)].map((s) => s.segment);
      const prefixes = graphemes.reduce<string[]>((acc, g) => [...acc, (acc.at(-1) ?? '') + g], ['']);
      for (let max = graphemes[0].length; max <= text.length; max++) {
        const cut = graphemePrefix(text, max);
        expect(cut.length).toBeLessThanOrEqual(max);
        expect(prefixes).toContain(cut);
      }
    }
  });

  it('cuts a first grapheme longer than the limit at a code point, never leaving a lone surrogate', () => {
    const zalgo = `a${'\u0301'.repeat(50)}`;
    expect(graphemePrefix(zalgo, 10)).toBe(zalgo.slice(0, 10));
    const flag = '🇫🇷🇫🇷';
    expect(graphemePrefix(flag, 3)).toBe('🇫');
    expect(hasLoneSurrogate(graphemePrefix('😀', 1))).toBe(false);
  });

  it('is linear: a 16,000-unit run of emoji is cut in well under a second, prose after a look back', () => {
    const run = '😀'.repeat(8000);
    const started = performance.now();
    for (let i = 0; i < 5; i++) expect(graphemePrefix(run, 15_999)).toHaveLength(15_998);
    expect(performance.now() - started).toBeLessThan(5_000);
    const prose = `${'word '.repeat(3_000)}${'e\u0301'.repeat(100)}`;
    expect(graphemePrefix(prose, 15_101)).toBe(prose.slice(0, 15_100));
  });
});

describe('cutText', () => {
  it('keeps text that fits and cuts the rest to the limit, "…" included', () => {
    expect(cutText('short', 10)).toBe('short');
    expect(cutText('😀😀😀', 4)).toBe('😀…');
    expect(cutText('abcdef', 4)).toBe('abc…');
  });
});
