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
    ['a viewer binding without a glob', 'aaaaaaaaaaaaaaaa=@player:aria'],
    ['a viewer binding with a bad id', 'aaaaaaaaaaaaaaaa=camp@player:-x'],
    ['an unknown viewer kind', 'aaaaaaaaaaaaaaaa=camp@dm:x'],
    ['one token bound to two viewers', 'aaaaaaaaaaaaaaaa=a@player:x,aaaaaaaaaaaaaaaa=b@player:y'],
    ['one token both bound and unbound', 'aaaaaaaaaaaaaaaa=a@player:x,aaaaaaaaaaaaaaaa=b'],
  ])('rejects %s without echoing the token', (_label, raw) => {
    expect(() => parseApiKeys(raw)).toThrow();
    try {
      parseApiKeys(raw);
    } catch (err) {
      if (raw.length > 2) expect((err as Error).message).not.toContain(raw.split('=')[0]);
    }
  });
});

describe('viewer-bound entries', () => {
  it('reads token=<glob>@player:<id> and @npc:<id>', () => {
    expect(
      parseApiKeys(
        'aaaaaaaaaaaaaaaa=acme-*@player:aria, bbbbbbbbbbbbbbbb=acme-1@npc:mira, aaaaaaaaaaaaaaaa=shared@player:aria',
      ),
    ).toEqual([
      { token: 'aaaaaaaaaaaaaaaa', scope: 'acme-*', viewer: { kind: 'player', id: 'aria' } },
      { token: 'bbbbbbbbbbbbbbbb', scope: 'acme-1', viewer: { kind: 'npc', id: 'mira' } },
      { token: 'aaaaaaaaaaaaaaaa', scope: 'shared', viewer: { kind: 'player', id: 'aria' } },
    ]);
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
