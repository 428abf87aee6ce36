import { scanJsonShape } from './json-duplicates';

const limits = { maxDepth: 64, maxKeys: 10_000 };
const keys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`;

describe('scanJsonShape (§13: bodies refused while they are read)', () => {
  it('finds a key twice in one object, escaped or not, and nothing in valid JSON', () => {
    expect(scanJsonShape('{"a":1,"b":{"a":2},"\\u0061":3}', limits)).toEqual({ kind: 'duplicate', key: 'a' });
    expect(scanJsonShape('{"a":[{"a":1},{"a":2}],"s":"{\\"a\\":1,\\"a\\":2}"}', limits)).toBeNull();
  });

  it('allows 64 levels inside the body and refuses 65, naming the field', () => {
    const deep = (d: number) => `{"content":${'{"a":'.repeat(d)}1${'}'.repeat(d)}}`;
    expect(scanJsonShape(deep(64), limits)).toBeNull();
    expect(scanJsonShape(deep(65), limits)).toEqual({ kind: 'depth', max: 64, path: 'content' });
    expect(scanJsonShape('['.repeat(1_000_000), limits)).toEqual({ kind: 'depth', max: 64, path: '' });
  });

  it('counts the keys inside the body fields, refusing past maxKeys', () => {
    expect(scanJsonShape(`{"content":${keys(10_000)},"tick":1,"merge":true}`, limits)).toBeNull();
    expect(scanJsonShape(`{"content":${keys(10_001)}}`, limits)).toEqual({ kind: 'keys', max: 10_000 });
  });

  it('stops at the first problem: a 1 MB refused body costs a fraction of its parse', () => {
    const body = `{"content":${'['.repeat(1_000_000)}`;
    const started = performance.now();
    for (let i = 0; i < 100; i++) expect(scanJsonShape(body, limits)?.kind).toBe('depth');
    expect(performance.now() - started).toBeLessThan(500);
  });
});
