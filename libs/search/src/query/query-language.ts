import { DomainError } from '@app/common';

/** A parsed search query (DESIGN §7): the only form in which user text reaches an engine. */
export type QueryNode =
  | { kind: 'word'; word: string; prefix: boolean }
  | { kind: 'phrase'; words: string[]; prefix: boolean } // prefix applies to the last word only
  | { kind: 'and'; children: QueryNode[] }
  | { kind: 'or'; children: QueryNode[] }
  | { kind: 'not'; include: QueryNode; exclude: QueryNode };

/** Longest query, counted in Unicode code points (an emoji is one character, as a user counts it). */
export const MAX_QUERY_LENGTH = 256;

// A word starts with a letter or digit; combining marks belong to the word they follow (Indic vowel signs, decomposed
// accents).
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;
const WHITESPACE = /\s/u;
const OPERATORS = new Set(['AND', 'OR', 'NOT']);

type Token = { type: 'term'; node: QueryNode } | { type: 'op'; op: 'AND' | 'OR' | 'NOT' };

const invalidQuery = (message: string) => new DomainError('invalid', 'INVALID_QUERY', message);

const wordsOf = (text: string): { word: string; end: number }[] =>
  [...text.matchAll(WORD)].map((m) => ({ word: m[0].toLowerCase(), end: m.index + m[0].length }));

const termOf = (words: string[], prefix: boolean): QueryNode =>
  words.length === 1 ? { kind: 'word', word: words[0], prefix } : { kind: 'phrase', words, prefix };

/** Reads a bare (unquoted) token: an operator, a word/implicit phrase (`iron-ore`), or nothing (`!!!`). */
function bareToken(raw: string): Token | null {
  if (OPERATORS.has(raw)) return { type: 'op', op: raw as 'AND' | 'OR' | 'NOT' };
  if (/[()]/.test(raw)) throw invalidQuery('Parentheses are not supported in search queries.');
  const star = raw.indexOf('*');
  const prefix = star !== -1;
  const body = prefix ? raw.slice(0, star) : raw;
  const words = wordsOf(body);
  if (prefix) {
    // `*` must be the token's last character and touch the word it extends: `iro*`, `iron-o*`; not `*`, `a**`, `a*b`,
    // `a-*`.
    const last = words[words.length - 1];
    if (star !== raw.length - 1 || !last || last.end !== body.length) {
      throw invalidQuery('"*" must directly follow a word, at its end (e.g. iro*).');
    }
  }
  if (words.length === 0) return null;
  return {
    type: 'term',
    node: termOf(
      words.map((w) => w.word),
      prefix,
    ),
  };
}

function tokenize(q: string): Token[] {
  const chars = [...q.normalize('NFC')];
  const tokens: Token[] = [];
  let i = 0;
  while (i < chars.length) {
    const c = chars[i];
    if (WHITESPACE.test(c)) {
      i++;
    } else if (c === '"') {
      const close = chars.indexOf('"', i + 1);
      if (close === -1) throw invalidQuery('Unbalanced quotes: a quoted phrase is not closed.');
      // Inside quotes every other character is literal punctuation, as in FTS5: it only separates words.
      const words = wordsOf(chars.slice(i + 1, close).join(''));
      if (words.length === 0) throw invalidQuery('Empty phrase: a quoted phrase must contain at least one word.');
      if (chars[close + 1] === '*') throw invalidQuery('"*" must directly follow a word, not a quoted phrase.');
      tokens.push({
        type: 'term',
        node: termOf(
          words.map((w) => w.word),
          false,
        ),
      });
      i = close + 1;
    } else {
      let end = i;
      while (end < chars.length && chars[end] !== '"' && !WHITESPACE.test(chars[end])) end++;
      const token = bareToken(chars.slice(i, end).join(''));
      if (token) tokens.push(token);
      i = end;
    }
  }
  return tokens;
}

const flatten = (kind: 'and' | 'or', nodes: QueryNode[]): QueryNode => {
  const children = nodes.flatMap((n) => (n.kind === kind ? n.children : [n]));
  return children.length === 1 ? children[0] : { kind, children };
};

/**
 * Parses user search text (DESIGN §7) into a QueryNode, or throws DomainError INVALID_QUERY.
 * Precedence: OR binds tightest, then AND (implicit or explicit), and `x NOT y` means x AND NOT y.
 */
export function parseQuery(q: string): QueryNode {
  if (q.trim() === '') throw invalidQuery('The query is empty.');
  if ([...q].length > MAX_QUERY_LENGTH) throw invalidQuery(`The query is longer than ${MAX_QUERY_LENGTH} characters.`);
  const tokens = tokenize(q);
  if (!tokens.some((t) => t.type === 'term')) {
    const op = tokens.find((t) => t.type === 'op');
    throw invalidQuery(
      op ? `"${(op as { op: string }).op}" needs a term on each side.` : 'The query contains no searchable word.',
    );
  }

  // Conjuncts of OR-groups; `negated` ones are subtracted.
  const groups: { negated: boolean; alternatives: QueryNode[] }[] = [];
  let pending: 'AND' | 'OR' | 'NOT' | null = null;
  for (const [index, token] of tokens.entries()) {
    if (token.type === 'op') {
      if (index === 0) {
        throw invalidQuery(
          token.op === 'NOT'
            ? 'A query cannot start with NOT: name what to search for first (e.g. iron NOT ore).'
            : `A query cannot start with ${token.op}.`,
        );
      }
      if (pending) throw invalidQuery(`"${pending} ${token.op}": two operators in a row.`);
      pending = token.op;
      continue;
    }
    if (pending === 'OR') groups[groups.length - 1].alternatives.push(token.node);
    else groups.push({ negated: pending === 'NOT', alternatives: [token.node] });
    pending = null;
  }
  if (pending) throw invalidQuery(`"${pending}" at the end of the query needs a term after it.`);

  const asNode = (g: { alternatives: QueryNode[] }) => flatten('or', g.alternatives);
  const include = flatten('and', groups.filter((g) => !g.negated).map(asNode));
  const excluded = groups.filter((g) => g.negated).map(asNode);
  return excluded.length === 0 ? include : { kind: 'not', include, exclude: flatten('or', excluded) };
}

const fts5String = (text: string) => `"${text.replace(/"/g, '""')}"`;
const isCompound = (node: QueryNode) => node.kind === 'and' || node.kind === 'or' || node.kind === 'not';

/** Compiles a QueryNode to an FTS5 MATCH expression in which every word is a quoted string. */
export function compileFts5(node: QueryNode): string {
  const child = (n: QueryNode) => (isCompound(n) ? `(${compileFts5(n)})` : compileFts5(n));
  switch (node.kind) {
    case 'word':
      return fts5String(node.word) + (node.prefix ? ' *' : '');
    case 'phrase':
      return fts5String(node.words.join(' ')) + (node.prefix ? ' *' : '');
    case 'and':
      return node.children.map(child).join(' AND ');
    case 'or':
      return node.children.map(child).join(' OR ');
    case 'not':
      return `${child(node.include)} NOT ${child(node.exclude)}`;
  }
}

const lexeme = (word: string, prefix: boolean) =>
  `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}'${prefix ? ':*' : ''}`;

/** Compiles a QueryNode to tsquery text for `to_tsquery('simple', $1)`, every word a quoted lexeme. */
export function compileTsquery(node: QueryNode): string {
  const child = (n: QueryNode) => (isCompound(n) ? `(${compileTsquery(n)})` : compileTsquery(n));
  switch (node.kind) {
    case 'word':
      return lexeme(node.word, node.prefix);
    case 'phrase':
      return node.words.map((w, i) => lexeme(w, node.prefix && i === node.words.length - 1)).join(' <-> ');
    case 'and':
      return node.children.map(child).join(' & ');
    case 'or':
      return node.children.map(child).join(' | ');
    case 'not':
      return `${child(node.include)} & !${child(node.exclude)}`;
  }
}

/**
 * Words and prefixes (without `*`) a match can contain, de-duplicated, for snippet highlighting; NOT'd words are left
 * out.
 */
export function queryWords(node: QueryNode): string[] {
  const collect = (n: QueryNode): string[] => {
    switch (n.kind) {
      case 'word':
        return [n.word];
      case 'phrase':
        return n.words;
      case 'and':
      case 'or':
        return n.children.flatMap(collect);
      case 'not':
        return collect(n.include);
    }
  };
  return [...new Set(collect(node))];
}

// Function words and contraction stubs (don't → "don") that would make every message match.
const RECALL_STOP_WORDS = new Set(
  (
    'the a an and or not nor of to in on at is are was were be been being am do does did done doing ' +
    'what who whom whose which when where why how i you he she it we they me him us them my mine your yours ' +
    'his her hers its our ours their theirs this that these those with for from by as about into onto than then ' +
    'there here have has had having will would can could should shall may might must want wants wanted know knows ' +
    'so if but all any some no yes also just very too only again ever even still up down out off over under ' +
    'let lets get got tell told say said please okay ok oh hey hi well now ' +
    'don doesn didn isn aren wasn weren won wouldn couldn shouldn haven hasn hadn ll re ve'
  ).split(' '),
);

/** Builds the Recall query (DESIGN §8) from free text: its distinct content words, ORed; null when none remain. */
export function recallQuery(text: string, maxWords = 32): QueryNode | null {
  const words: string[] = [];
  const seen = new Set<string>();
  for (const { word } of wordsOf(text.normalize('NFC'))) {
    if (words.length >= maxWords) break;
    if ([...word].length < 2 || RECALL_STOP_WORDS.has(word) || seen.has(word)) continue;
    seen.add(word);
    words.push(word);
  }
  if (words.length === 0) return null;
  return flatten(
    'or',
    words.map((word) => ({ kind: 'word', word, prefix: false })),
  );
}
