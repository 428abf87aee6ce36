import { DomainError } from '@app/common';
import {
  compileFts5,
  compileTsquery,
  MAX_QUERY_LENGTH,
  parseQuery,
  QueryNode,
  queryWords,
  recallQuery,
} from './query-language';

const fts5 = (q: string) => compileFts5(parseQuery(q));
const tsq = (q: string) => compileTsquery(parseQuery(q));

const rejection = (q: string): DomainError | undefined => {
  try {
    parseQuery(q);
    return undefined;
  } catch (e) {
    return e as DomainError;
  }
};

// Tokens an FTS5 expression may contain when no user character leaks into its syntax.
const SAFE_FTS5 = /^(?:"(?:[^"]|"")*"|\*|\(|\)|AND|OR|NOT| )+$/u;

describe('parseQuery', () => {
  describe('rejects with INVALID_QUERY', () => {
    it.each([
      ['empty', ''],
      ['whitespace only', ' \t\n '],
      ['longer than 256 characters', 'a'.repeat(MAX_QUERY_LENGTH + 1)],
      ['an unclosed quote', '"iron ore'],
      ['an odd number of quotes', '"iron" "ore'],
      ['an empty phrase', '""'],
      ['an empty phrase among words', 'iron "" ore'],
      ['a phrase of punctuation only', '"!?"'],
      ['AND OR', 'iron AND OR ore'],
      ['OR OR', 'iron OR OR ore'],
      ['NOT NOT', 'iron NOT NOT ore'],
      ['AND NOT', 'iron AND NOT ore'],
      ['OR at the end', 'iron OR'],
      ['AND at the end', 'iron AND'],
      ['NOT at the end', 'iron NOT'],
      ['OR at the start', 'OR iron'],
      ['AND at the start', 'AND iron'],
      ['a leading NOT (pure negation)', 'NOT iron'],
      ['an operator alone', 'OR'],
      ['operators only', 'AND OR'],
      ['an operator dangling after punctuation-only tokens', 'iron OR !!!'],
      ['a bare *', '*'],
      ['a bare * after a word', 'iron *'],
      ['a * after a quoted phrase', '"iron ore"*'],
      ['a * after a spaced quoted phrase', '"a" *'],
      ['a * after punctuation', 'iron-*'],
      ['a doubled *', 'iro**'],
      ['a * inside a word', 'ir*on'],
      ['a leading *', '*iron'],
      ['an opening parenthesis', '(iron'],
      ['a closing parenthesis', 'iron)'],
      ['a parenthesised group', '(iron OR ore) copper'],
      ['NEAR( syntax', 'NEAR(a b)'],
      ['no searchable word', '!!!'],
      ['no searchable word among punctuation', "- : ^ ' \\"],
    ])('%s', (_label, q) => {
      const error = rejection(q);
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ kind: 'invalid', code: 'INVALID_QUERY' });
      expect(error!.message.length).toBeGreaterThan(0);
    });

    it('says why a leading NOT is refused', () => {
      expect(rejection('NOT iron')!.message).toMatch(/NOT/);
    });
  });

  it('accepts exactly 256 characters, counted in code points', () => {
    expect(() => parseQuery('a'.repeat(MAX_QUERY_LENGTH))).not.toThrow();
    // 256 emoji are 512 UTF-16 units but 256 characters.
    expect(() => parseQuery('x ' + '🐉'.repeat(MAX_QUERY_LENGTH - 2))).not.toThrow();
    expect(rejection('x ' + '🐉'.repeat(MAX_QUERY_LENGTH - 1))?.code).toBe('INVALID_QUERY');
  });

  it('ANDs words separated by whitespace, lower-cased', () => {
    expect(parseQuery('Iron  ORE')).toEqual({
      kind: 'and',
      children: [
        { kind: 'word', word: 'iron', prefix: false },
        { kind: 'word', word: 'ore', prefix: false },
      ],
    });
  });

  it('treats an explicit AND as the implicit one', () => {
    expect(parseQuery('iron AND ore')).toEqual(parseQuery('iron ore'));
  });

  it('treats lower-case or/not/and as plain words', () => {
    expect(fts5('iron or not and ore')).toBe('"iron" AND "or" AND "not" AND "and" AND "ore"');
  });

  it('parses quoted phrases and keeps a one-word phrase as a word', () => {
    expect(parseQuery('"Iron Ore"')).toEqual({ kind: 'phrase', words: ['iron', 'ore'], prefix: false });
    expect(parseQuery('"iron"')).toEqual({ kind: 'word', word: 'iron', prefix: false });
    expect(fts5('"iron ore" copper')).toBe('"iron ore" AND "copper"');
  });

  it('keeps operators and special characters inside quotes literal', () => {
    expect(parseQuery('"iron OR (ore*)"')).toEqual({ kind: 'phrase', words: ['iron', 'or', 'ore'], prefix: false });
  });

  it('parses prefixes', () => {
    expect(parseQuery('Iro*')).toEqual({ kind: 'word', word: 'iro', prefix: true });
    expect(fts5('iro*')).toBe('"iro" *');
    expect(tsq('iro*')).toBe("'iro':*");
  });

  it('turns punctuation inside a bare word into an implicit phrase, as FTS5 does', () => {
    expect(parseQuery('iron-ore')).toEqual({ kind: 'phrase', words: ['iron', 'ore'], prefix: false });
    expect(parseQuery('iron-o*')).toEqual({ kind: 'phrase', words: ['iron', 'o'], prefix: true });
    expect(fts5('iron-o*')).toBe('"iron o" *');
    expect(tsq('iron-o*')).toBe("'iron' <-> 'o':*");
  });

  it('ignores punctuation-only tokens between terms', () => {
    expect(fts5('iron !!! ore')).toBe('"iron" AND "ore"');
    expect(fts5('iron, ore.')).toBe('"iron" AND "ore"');
  });

  it('keeps accents and letters of every script', () => {
    expect(fts5('Café Ñandú')).toBe('"café" AND "ñandú"');
    expect(fts5('مرحبا 東京')).toBe('"مرحبا" AND "東京"');
    // A decomposed accent is composed so both spellings give the same query.
    expect(parseQuery('Cafe\u0301')).toEqual(parseQuery('Café'));
  });

  describe('precedence: OR binds tightest, then AND; x NOT y is x AND NOT y', () => {
    it('a b OR c → a AND (b OR c)', () => {
      expect(fts5('a b OR c')).toBe('"a" AND ("b" OR "c")');
      expect(tsq('a b OR c')).toBe("'a' & ('b' | 'c')");
    });

    it('a OR b c → (a OR b) AND c', () => {
      expect(fts5('a OR b c')).toBe('("a" OR "b") AND "c"');
    });

    it('a OR b OR c is one OR', () => {
      expect(parseQuery('a OR b OR c')).toEqual({
        kind: 'or',
        children: ['a', 'b', 'c'].map((word) => ({ kind: 'word', word, prefix: false })),
      });
    });

    it('a NOT b', () => {
      expect(fts5('a NOT b')).toBe('"a" NOT "b"');
      expect(tsq('a NOT b')).toBe("'a' & !'b'");
    });

    it('a NOT b OR c → a AND NOT (b OR c)', () => {
      expect(fts5('a NOT b OR c')).toBe('"a" NOT ("b" OR "c")');
      expect(tsq('a NOT b OR c')).toBe("'a' & !('b' | 'c')");
    });

    it('a NOT b c NOT d → (a AND c) AND NOT (b OR d)', () => {
      expect(fts5('a NOT b c NOT d')).toBe('("a" AND "c") NOT ("b" OR "d")');
      expect(tsq('a NOT b c NOT d')).toBe("('a' & 'c') & !('b' | 'd')");
    });

    it('phrases and prefixes combine with operators', () => {
      expect(fts5('"iron ore" OR cop* NOT tin')).toBe('("iron ore" OR "cop" *) NOT "tin"');
      expect(tsq('"iron ore" OR cop* NOT tin')).toBe("('iron' <-> 'ore' | 'cop':*) & !'tin'");
    });
  });

  describe('injection attempts compile to inert quoted words', () => {
    it.each([
      ['a column filter', 'title:foo', '"title foo"', "'title' <-> 'foo'"],
      ['a column filter set', '{title body}: foo', '"title" AND "body" AND "foo"', "'title' & 'body' & 'foo'"],
      ['an initial-token anchor', '^iron a^', '"iron" AND "a"', "'iron' & 'a'"],
      ['FTS5 phrase concatenation', 'one + two', '"one" AND "two"', "'one' & 'two'"],
      ['NEAR without parentheses', 'NEAR a', '"near" AND "a"', "'near' & 'a'"],
      ['an SQL break-out', "'; DROP TABLE x; --", '"drop" AND "table" AND "x"', "'drop' & 'table' & 'x'"],
      ['backslashes', 'iron\\ \\ore\\\\', '"iron" AND "ore"', "'iron' & 'ore'"],
      ['tsquery operators', 'a & !b | c <-> d', '"a" AND "b" AND "c" AND "d"', "'a' & 'b' & 'c' & 'd'"],
      ['a tsquery weight', 'iron:AB', '"iron ab"', "'iron' <-> 'ab'"],
      ['lower-case near', 'near/3', '"near 3"', "'near' <-> '3'"],
    ])('%s: %s', (_label, q, expectedFts5, expectedTsquery) => {
      expect(fts5(q)).toBe(expectedFts5);
      expect(tsq(q)).toBe(expectedTsquery);
    });

    it.each(['NEAR(a b)', '"a" *', 'a OR (b)', 'iron:*'])('%s is refused rather than passed through', (q) => {
      expect(rejection(q)?.code).toBe('INVALID_QUERY');
    });
  });
});

describe('compilers escape hand-built nodes', () => {
  const hostile: QueryNode = {
    kind: 'or',
    children: [
      { kind: 'word', word: 'a"b', prefix: false },
      { kind: 'word', word: "o'neil\\", prefix: true },
    ],
  };

  it('doubles double quotes for FTS5', () => {
    expect(compileFts5(hostile)).toBe('"a""b" OR "o\'neil\\" *');
    expect(compileFts5(hostile)).toMatch(SAFE_FTS5);
  });

  it('doubles single quotes and backslashes for tsquery', () => {
    expect(compileTsquery(hostile)).toBe("'a\"b' | 'o''neil\\\\':*");
  });
});

describe('queryWords', () => {
  it('lists words, phrase words and prefixes once, leaving out excluded ones', () => {
    expect(queryWords(parseQuery('"iron ore" OR iro* iron NOT copper'))).toEqual(['iron', 'ore', 'iro']);
  });
});

describe('recallQuery', () => {
  it('ORs the distinct content words of free text in first-seen order', () => {
    expect(compileFts5(recallQuery('What did the Geometers want with the Void-Chisel? The geometers!')!)).toBe(
      '"geometers" OR "void" OR "chisel"',
    );
  });

  it('never rejects punctuation or operator-looking text', () => {
    const node = recallQuery('"unbalanced ( NOT * OR title:foo \' \\ NEAR(x y)');
    expect(node).not.toBeNull();
    expect(compileFts5(node!)).toBe('"unbalanced" OR "title" OR "foo" OR "near"');
    expect(compileFts5(node!)).toMatch(SAFE_FTS5);
  });

  it('drops one-letter words and stop words, and returns null when nothing is left', () => {
    expect(recallQuery('Do you know what I want?')).toBeNull();
    expect(recallQuery('!!! ... ?')).toBeNull();
    expect(recallQuery("don't x y z")).toBeNull();
  });

  it('returns a single word node for one word', () => {
    expect(recallQuery('Tell me about Varkas.')).toEqual({ kind: 'word', word: 'varkas', prefix: false });
  });

  it('caps the number of words', () => {
    const text = Array.from({ length: 50 }, (_, i) => `word${i}`).join(' ');
    const node = recallQuery(text, 5)!;
    expect(queryWords(node)).toEqual(['word0', 'word1', 'word2', 'word3', 'word4']);
    expect(queryWords(recallQuery(text)!)).toHaveLength(32);
  });
});

describe('random input (deterministic)', () => {
  // mulberry32: a tiny seeded generator so any failure reproduces.
  const random = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const alphabet = [
    ...'abcXYZ019',
    ' ',
    ' ',
    ' ',
    '\t',
    '\n',
    '\u00a0',
    '"',
    '"',
    '*',
    '*',
    '(',
    ')',
    '-',
    ':',
    '^',
    "'",
    '\\',
    '+',
    '{',
    '}',
    ';',
    '.',
    ',',
    '!',
    '&',
    '|',
    '<',
    '>',
    '\u0000',
    'é',
    'e\u0301',
    'ß',
    'İ',
    'Ω',
    'ж',
    '東',
    'שלום',
    'مرحبا',
    '\u200f',
    '\u202e',
    '🐉',
    '👩‍🚀',
    '\ud800',
    'OR',
    'AND',
    'NOT',
    'NEAR',
    ' OR ',
    ' AND ',
    ' NOT ',
  ];

  it('every string either parses to safe engine text or is refused with INVALID_QUERY', () => {
    const next = random(20260101);
    let parsed = 0;
    let refused = 0;
    for (let n = 0; n < 2000; n++) {
      const length = 1 + Math.floor(next() * 24);
      let q = '';
      for (let k = 0; k < length; k++) q += alphabet[Math.floor(next() * alphabet.length)];
      let node: QueryNode;
      try {
        node = parseQuery(q);
      } catch (e) {
        expect(e).toBeInstanceOf(DomainError);
        expect((e as DomainError).code).toBe('INVALID_QUERY');
        refused++;
        continue;
      }
      parsed++;
      const match = compileFts5(node);
      const tsquery = compileTsquery(node);
      expect(match.length).toBeGreaterThan(0);
      expect(tsquery.length).toBeGreaterThan(0);
      if (!SAFE_FTS5.test(match)) throw new Error(`unsafe FTS5 for ${JSON.stringify(q)}: ${match}`);
      expect(match).not.toContain('\u0000');
      expect(tsquery).not.toContain('\u0000');
      expect(queryWords(node).length).toBeGreaterThan(0);
    }
    // Both outcomes must actually be exercised.
    expect(parsed).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
  });
});
