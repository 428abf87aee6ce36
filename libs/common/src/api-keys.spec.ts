import { globToRegExp, parseApiKeys } from './api-keys';

describe('parseApiKeys', () => {
  it('reads unscoped and scoped entries, trimming blanks and ignoring empty entries', () => {
    expect(parseApiKeys(' aaaaaaaaaaaaaaaa , bbbbbbbbbbbbbbbb=acme-*,,')).toEqual([
      { token: 'aaaaaaaaaaaaaaaa', scope: null },
      { token: 'bbbbbbbbbbbbbbbb', scope: 'acme-*' },
    ]);
  });

  it.each([
    ['a token under 16 characters', 'short-token'],
    ['a token with a non-ASCII character', 'aaaaaaaaaaaaaaaé'],
    ['an empty scope', 'aaaaaaaaaaaaaaaa='],
    ['a scope with a slash', 'aaaaaaaaaaaaaaaa=a/b'],
    ['nothing but commas', ',,'],
  ])('rejects %s without echoing the token', (_label, raw) => {
    expect(() => parseApiKeys(raw)).toThrow();
    try {
      parseApiKeys(raw);
    } catch (err) {
      if (raw.length > 2) expect((err as Error).message).not.toContain(raw.split('=')[0]);
    }
  });
});

describe('globToRegExp', () => {
  it('treats * as any run of characters and everything else literally', () => {
    const re = globToRegExp('acme.*-prod');
    expect(re.test('acme.x-prod')).toBe(true);
    expect(re.test('acme.-prod')).toBe(true);
    expect(re.test('acmeX1-prod')).toBe(false);
    expect(re.test('acme.x-prod2')).toBe(false);
    expect(globToRegExp('*').test('anything:at.all')).toBe(true);
    expect(globToRegExp('Acme').test('acme')).toBe(false);
  });
});
