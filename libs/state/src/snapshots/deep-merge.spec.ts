import { countKeys, deepMerge, updateFieldTicks } from './deep-merge';

describe('deepMerge', () => {
  it('merges objects, replaces arrays and scalars, and names only the leaves that changed', () => {
    const base = { credits: 10, ship: { hull: 90, fuel: 50 }, cargo: ['ore'], name: 'Aria' };
    const { content, changed } = deepMerge(base, { ship: { hull: 80 }, cargo: ['ice', 'gas'], name: 'Aria' });
    expect(content).toEqual({ credits: 10, ship: { hull: 80, fuel: 50 }, cargo: ['ice', 'gas'], name: 'Aria' });
    expect(changed.sort()).toEqual(['cargo', 'ship.hull']);
    expect(base.ship.hull).toBe(90);
  });

  it('turns a scalar into an object and back', () => {
    expect(deepMerge({ a: 1 }, { a: { b: 2 } })).toEqual({ content: { a: { b: 2 } }, changed: ['a.b'] });
    expect(deepMerge({ a: { b: 2 } }, { a: 3 })).toEqual({ content: { a: 3 }, changed: ['a'] });
  });
});

describe('updateFieldTicks', () => {
  it('records the tick of each changed path and forgets replaced sub-paths', () => {
    const ticks = updateFieldTicks({ 'a.b': 1, 'a.c': 1, d: 1 }, ['a'], 5);
    expect(ticks).toEqual({ a: 5, d: 1 });
    expect(updateFieldTicks({ a: 5 }, ['a.x'], 6)).toEqual({ 'a.x': 6 });
  });
});

describe('updateFieldTicks at scale', () => {
  it('forgets ancestors and descendants at dot boundaries only', () => {
    const ticks = updateFieldTicks({ a: 1, 'ab.c': 1, 'a.b.c': 1, 'x.y': 2 }, ['a.b', 'x.y.z'], 3);
    expect(ticks).toEqual({ 'ab.c': 1, 'a.b': 3, 'x.y.z': 3 });
  });

  it('handles ten thousand changed paths against ten thousand stored ones (was quadratic: 8,000 keys took 9 s)', () => {
    const stored = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`ship.modules.m${i}.hp`, 1]));
    const changed = Array.from({ length: 10_000 }, (_, i) => `ship.modules.m${i}`);
    const started = performance.now();
    const ticks = updateFieldTicks(stored, changed, 2);
    expect(performance.now() - started).toBeLessThan(2_000); // generous: linear takes a few ms
    expect(Object.keys(ticks)).toHaveLength(10_000);
    expect(ticks['ship.modules.m9999']).toBe(2);
  });

  it('counts keys at every level and stops past the limit', () => {
    expect(countKeys({ a: { b: 1, c: [{ d: 1 }] } })).toBe(4);
    expect(
      countKeys(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, { x: 1 }])), 10),
    ).toBeGreaterThan(10);
  });
});
