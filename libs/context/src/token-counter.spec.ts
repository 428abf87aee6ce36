import { TiktokenCounter } from './token-counter.port';

describe('TiktokenCounter', () => {
  const counter = new TiktokenCounter();

  it('counts o200k_base tokens', () => {
    expect(counter.count('')).toBe(0);
    expect(counter.count('hello world')).toBe(2);
  });

  it('counts a special-token string as the plain text it is instead of throwing', () => {
    const n = counter.count('say <|endoftext|> now');
    expect(n).toBeGreaterThan(3); // as one special token it would be 3: "say", "<|endoftext|>", " now"
    expect(n).toBe(counter.count('say <|endoftext|> now'));
  });

  it('gives the same count for a remembered text, a long text and across counters', () => {
    const text = 'The Geometers want the Void-Chisel. '.repeat(10);
    const first = counter.count(text);
    expect(counter.count(text)).toBe(first);
    expect(new TiktokenCounter().count(text)).toBe(first);
    const long = text.repeat(20); // past the memo's 2,000 characters
    expect(counter.count(long)).toBe(counter.count(long));
    expect(counter.count(long)).toBeGreaterThan(first * 19);
  });
});
