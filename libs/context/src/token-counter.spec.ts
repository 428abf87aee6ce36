import fc from 'fast-check';
import { hostileText } from '../../../test/support/fuzz/hostile-values';
import { pieceBounds, RUN_MAX, TiktokenCounter } from './token-counter.port';

describe('TiktokenCounter', () => {
  const counter = new TiktokenCounter();

  it('counts o200k_base tokens exactly as js-tiktoken did on normal text', () => {
    // Counts measured with js-tiktoken 1.0.21 (o200k_base) before the swap to gpt-tokenizer.
    const measured: [string, number][] = [
      ['hello world', 2],
      [
        'At The Rusty Anchor: Aria paid Mira 3 silver; Mira said smugglers moved forty crates to the old lighthouse.',
        27,
      ],
      ['¿Dónde está la biblioteca? 図書館はどこですか。 مرحبا بالعالم — naïve café, 1,234.56 €.', 32],
      ['- 2026-11-23 07:28 — [Mira] "Forty crates," she whispers. "The Tide Court pays in obsidian." 🙂\n', 35],
      ['    indented code();\n\n\n\tTabs\tand  double  spaces  ', 13],
    ];
    expect(counter.count('')).toBe(0);
    for (const [text, n] of measured) expect(counter.count(text)).toBe(n);
    expect(new TiktokenCounter().count(measured[1][0])).toBe(27);
  });

  it('counts a special-token string as the plain text it is instead of throwing', () => {
    const n = counter.count('say <|endoftext|> now');
    expect(n).toBeGreaterThan(3); // as one special token it would be 3: "say", "<|endoftext|>", " now"
    expect(n).toBe(counter.count('say <|endoftext|> now'));
  });

  it('leaves text without long runs in one piece and cuts long runs inside, never between a surrogate pair', () => {
    const prose = 'The Geometers want the Void-Chisel. '.repeat(500);
    expect(pieceBounds(prose)).toEqual([0, prose.length]);
    const emoji = `before ${'😀'.repeat(200)} after`;
    const bounds = pieceBounds(emoji);
    expect(bounds.length).toBeGreaterThan(3);
    for (const b of bounds.slice(1, -1)) {
      expect(b).toBeGreaterThan(7); // the run's first piece stays with "before "
      expect(emoji.charCodeAt(b - 1) >= 0xd800 && emoji.charCodeAt(b - 1) <= 0xdbff).toBe(false);
    }
  });

  it('counts a long run close to the exact count (one token per piece at most)', () => {
    const run = 'x'.repeat(16_000);
    const pieces = pieceBounds(run).length - 1;
    expect(Math.abs(counter.count(run) - 2_000)).toBeLessThanOrEqual(pieces); // the encoder's own count is 2,000
    expect(counter.count(`${'hello '.repeat(10)}${'y'.repeat(RUN_MAX)}`)).toBe(
      counter.count(`${'hello '.repeat(10)}${'y'.repeat(RUN_MAX)}`),
    );
  });

  it('gives the event loop turns while warming long texts, and count() then reads the same numbers', async () => {
    const fresh = new TiktokenCounter();
    const texts = Array.from(
      { length: 8 },
      (_, i) => `${String.fromCodePoint(0x4e00 + i)}${'中文字符😀'.repeat(3_000)}${i}`,
    );
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    await fresh.warm(texts);
    ticking = false;
    expect(turns).toBeGreaterThan(1);
    expect(texts.map((t) => fresh.count(t))).toEqual(texts.map((t) => new TiktokenCounter().count(t)));
  });

  // Generous bounds (the machine is shared and CI is slow): the quadratic counter took 38 s for 16,000 "x" and more
  // than 10 minutes for 16,000 emoji. The real numbers are in `npm run bench -- --only hostile`.
  it('counts generated hostile texts up to the content limit in bounded time', () => {
    fc.assert(
      fc.property(hostileText(16_000), (text) => {
        const fresh = new TiktokenCounter();
        const started = performance.now();
        const n = fresh.count(text);
        expect(performance.now() - started).toBeLessThan(3_000);
        expect(n).toBeGreaterThan(0);
        expect(n).toBeLessThanOrEqual(new TextEncoder().encode(text).length);
      }),
      { numRuns: 40 },
    );
  });
});
