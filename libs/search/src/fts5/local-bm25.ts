import { QueryNode } from '../query/query-language';

/** BM25's usual constants (FTS5's bm25() uses the same). */
const K1 = 1.2;
const B = 0.75;

/** A term a query scores by: a word, or a prefix (`drag*`); a phrase scores by its words. */
export interface ScoringTerm {
  word: string;
  prefix: boolean;
}

/** Folds text as `unicode61 remove_diacritics 2` does, near enough to count: accents off, lower case. */
export const fold = (text: string): string => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** The tokens of a text as the index splits it: runs of letters and digits, folded. */
export const tokensOf = (text: string): string[] =>
  fold(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** The terms that score a match (NOT'd words only filter), folded, de-duplicated in query order. */
export function scoringTerms(node: QueryNode): ScoringTerm[] {
  const collect = (n: QueryNode): ScoringTerm[] => {
    switch (n.kind) {
      case 'word':
        return [{ word: n.word, prefix: n.prefix }];
      case 'phrase':
        return n.words.map((word, i) => ({ word, prefix: n.prefix && i === n.words.length - 1 }));
      case 'and':
      case 'or':
        return n.children.flatMap(collect);
      case 'not':
        return collect(n.include);
    }
  };
  const seen = new Set<string>();
  return collect(node)
    .map((t) => ({ word: fold(t.word), prefix: t.prefix }))
    .filter((t) => {
      const key = `${t.word}${t.prefix ? '*' : ''}`;
      if (t.word === '' || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/** One candidate document: its id (rowid) and its text. */
export interface Candidate {
  id: number;
  body: string;
}

/** What the campaign holds at the read's version: its documents and how many contain each term. */
export interface CampaignStats {
  docs: number;
  /** Per scoring term, in `terms` order. */
  containing: number[];
}

/**
 * DESIGN §8 "recall depends on the campaign alone": BM25 over the candidates with the campaign's own statistics at the
 * read's version — N and each term's document count from the campaign's rows only, the average length from the
 * candidates — so no other campaign's rows move a rank or a score. Higher is better; ties newest first.
 */
export function rankLocally(
  candidates: Candidate[],
  terms: ScoringTerm[],
  stats: CampaignStats,
): Array<{ id: number; score: number }> {
  const tokenized = candidates.map((c) => ({ id: c.id, tokens: tokensOf(c.body) }));
  const avgdl = tokenized.reduce((n, d) => n + d.tokens.length, 0) / Math.max(1, tokenized.length) || 1;
  const idf = terms.map((_t, i) => {
    const nt = Math.min(stats.containing[i], stats.docs);
    return Math.log(1 + (stats.docs - nt + 0.5) / (nt + 0.5));
  });
  return tokenized
    .map(({ id, tokens }) => {
      let score = 0;
      terms.forEach((t, i) => {
        let tf = 0;
        for (const token of tokens) if (t.prefix ? token.startsWith(t.word) : token === t.word) tf++;
        if (tf > 0) score += (idf[i] * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * tokens.length) / avgdl));
      });
      return { id, score };
    })
    .sort((a, b) => b.score - a.score || b.id - a.id);
}
