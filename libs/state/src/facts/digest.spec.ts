import { Fact } from '@app/campaign';
import { TiktokenCounter } from '@app/context';
import { createHash } from 'node:crypto';
import { buildDigest, statusAt } from './digest';

const counter = new TiktokenCounter();
const count = (t: string) => counter.count(t);
const now = new Date('2026-01-01T00:00:00Z');
let version = 0;
const fact = (type: string, key: string, value: string, extra: Partial<Fact> = {}): Fact => ({
  type,
  key,
  value,
  priority: 0,
  expiresAt: null,
  status: 'active',
  assertedAt: '',
  assertedVersion: ++version,
  resolvedAt: null,
  ...extra,
});

describe('fact digest', () => {
  it('is canonical: typed lines, collapsed whitespace, sorted, SHA-256 of the text', () => {
    const d = buildDigest(
      [
        fact('rumor', 'r', '  ghosts   in\nthe hold ', { expiresAt: '2026-01-02T00:00:00Z' }),
        fact('conflict', 'c', 'War with the Geometers'),
      ],
      now,
      180,
      count,
    );
    expect(d.text).toBe('Conflict: War with the Geometers\nRumor: ghosts in the hold');
    expect(d.version).toBe(createHash('sha256').update(d.text).digest('hex'));
    expect(d.tokens).toBe(count(d.text));
  });

  it('leaves out expired and resolved facts', () => {
    const timer = fact('timer', 't', 'Reactor blows', { expiresAt: '2026-01-01T00:00:30Z' });
    expect(statusAt(timer, now)).toBe('active');
    expect(statusAt(timer, new Date('2026-01-01T00:00:30Z'))).toBe('expired');
    expect(
      buildDigest(
        [timer, fact('debt', 'd', 'Owes 5', { status: 'resolved' })],
        new Date('2026-01-01T00:01:00Z'),
        180,
        count,
      ).text,
    ).toBe('');
  });

  it('trims ephemeral first, then other types, then durable; lowest priority, then oldest first', () => {
    const facts = [
      fact('conflict', 'c1', 'A long durable conflict line that matters a lot to the story'),
      fact('weather', 'w1', 'Storms over the northern sea lanes tonight and tomorrow'),
      fact('buff', 'b-old', 'Blessed by the moon priestess for the whole journey', {
        expiresAt: '2026-01-02T00:00:00Z',
      }),
      fact('buff', 'b-new', 'Blessed by the sun priestess for the whole journey', {
        expiresAt: '2026-01-02T00:00:00Z',
      }),
      fact('buff', 'b-high', 'Blessed by the star priestess for the whole journey', {
        expiresAt: '2026-01-02T00:00:00Z',
        priority: 5,
      }),
    ];
    const without = (...keys: string[]) =>
      buildDigest(
        facts.filter((f) => !keys.includes(f.key)),
        now,
        10_000,
        count,
      ).tokens;
    const budget = without('b-old', 'b-new') - 1;
    const d = buildDigest(facts, now, budget, count);
    expect(d.dropped.map((x) => x.ref)).toEqual(['buff:b-old', 'buff:b-new', 'buff:b-high']);
    expect(d.tokens).toBeLessThanOrEqual(budget);
    const tight = buildDigest(facts, now, without('b-old', 'b-new', 'b-high', 'w1'), count);
    expect(tight.dropped.map((x) => x.ref)).toEqual(['buff:b-old', 'buff:b-new', 'buff:b-high', 'weather:w1']);
    expect(tight.text).toBe('Conflict: A long durable conflict line that matters a lot to the story');
    expect(tight.version).toBe(createHash('sha256').update(tight.text).digest('hex'));
  });
});
