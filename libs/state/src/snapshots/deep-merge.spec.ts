import { deepMerge, updateFieldTicks } from './deep-merge';

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
