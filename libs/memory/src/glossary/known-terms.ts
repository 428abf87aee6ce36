import { CampaignState, glossaryKey } from '@app/campaign';
import { cutText } from '@app/common';
import { capWords } from '@app/summarizer';
import { allCoinedTerms } from './coined-terms';

export { MAX_TERM_CHARS } from './coined-terms';
/** A glossary definition is at most this long (DESIGN §8). */
export const MAX_DEFINITION_WORDS = 20;
/**
 * …and at most this many characters: a "word" of hostile text can be 16,000 characters, and every context prints the
 * glossary.
 */
export const MAX_DEFINITION_CHARS = 300;

/** A definition as stored and served: at most MAX_DEFINITION_WORDS words and MAX_DEFINITION_CHARS characters. */
export function capDefinition(text: string): string {
  const words = capWords(text, MAX_DEFINITION_WORDS);
  // §13: by grapheme (UTF-16 units), so neither an emoji nor an accented letter is cut in half.
  return cutText(words, MAX_DEFINITION_CHARS);
}

/** Names the glossary must not coin again, compared case-insensitively; grows as terms are added. */
export interface KnownTerms {
  has(term: string): boolean;
  /** A term just coined: known from now on, and counted in `coined`. */
  add(term: string): void;
  /** §13 MAX_GLOSSARY_TERMS: how many coined terms the campaign holds (bible and GM terms aside). */
  readonly coined: number;
}

// State documents written before players existed have no map.
const playersOf = (state: CampaignState) => state.players ?? {};

/** Registered player ids, sorted (the order per-player summaries are written in). */
export const playerIdsOf = (state: CampaignState): string[] => Object.keys(playersOf(state)).sort();

/**
 * What is already known (DESIGN §8): locations, NPCs and players (names and aliases), the terms the bible coins,
 * the DM's glossary overrides (hidden ones too, so a hidden term is not re-added) and the glossary's terms.
 */
export function knownTermsOf(state: CampaignState, glossaryTermKeys: Iterable<string>): KnownTerms {
  const keys = new Set<string>(glossaryTermKeys);
  let coined = keys.size;
  // "the Warden" is known as "Warden" too: the coining rule takes the word after "the".
  const add = (name: string | undefined) => {
    if (!name) return;
    keys.add(glossaryKey(name));
    keys.add(glossaryKey(name.replace(/^\s*(?:the|a|an)\s+/iu, '')));
  };
  for (const l of Object.values(state.locations)) add(l.name);
  for (const n of Object.values(state.npcs)) [n.name, ...n.aliases].forEach(add);
  for (const p of Object.values(playersOf(state))) [p.name, ...p.aliases].forEach(add);
  for (const key of Object.keys(state.glossary ?? {})) keys.add(key);
  if (state.bible) for (const part of [state.bible.text, state.bible.dmOnly]) allCoinedTerms(part).forEach(add);
  // A hidden term stays hidden in its spellings ("Obsidian-Syndicate", "Obsidian Syndicates") and inside longer runs.
  const hidden = Object.entries(state.glossary ?? {})
    .filter(([, o]) => o.hidden)
    .map(([key]) => ` ${variantKey(key)} `);
  const mentionsHidden = (term: string) => hidden.length > 0 && hidden.some((h) => ` ${variantKey(term)} `.includes(h));
  return {
    has: (term) => keys.has(glossaryKey(term)) || mentionsHidden(term),
    add: (term) => {
      keys.add(glossaryKey(term));
      coined++;
    },
    get coined() {
      return coined;
    },
  };
}

/**
 * A term's spelling-insensitive key: case, hyphens, underscores and spaces, possessives and a plural `s`/`es` of
 * each word do not count ("Obsidian-Syndicate's" ~ "obsidian syndicates" ~ "Obsidian Syndicate").
 */
export function variantKey(term: string): string {
  return glossaryKey(term)
    .split(/[\s\-‐‑‒–—_]+/u)
    .filter(Boolean)
    .map((w) => singular(w.replace(/['’]s$/u, '')))
    .join(' ');
}

/** English plural → singular, for the endings names take ("Syndicates", "Foxes", "Fortresses"; "Fortress" stays). */
function singular(word: string): string {
  if (/(?:ss|x|z|ch|sh)es$/u.test(word)) return word.slice(0, -2);
  return /\p{L}{2}[^s]s$/u.test(word) ? word.slice(0, -1) : word;
}
