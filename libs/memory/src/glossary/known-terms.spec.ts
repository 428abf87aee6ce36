import { emptyState } from '@app/campaign';
import { extractCoinedTerms, MAX_NEW_TERMS_PER_MESSAGE } from './coined-terms';
import { capDefinition, knownTermsOf, MAX_DEFINITION_CHARS, variantKey } from './known-terms';

/** A distinct CamelCase name per number ("ZarbaKel"): each one a coined term. */
const camel = (i: number) => `Zar${i.toString(26).replace(/./g, (d) => String.fromCharCode(97 + parseInt(d, 26)))}Kel`;

describe('knownTermsOf (DESIGN §8): what the glossary never coins', () => {
  const state = {
    ...emptyState('c'),
    locations: { keep: { id: 'keep', name: 'Stormwatch Keep', dangerLevel: null, completedEncounters: [] } },
    npcs: { mira: { id: 'mira', name: 'Mira Stone', aliases: ['the Warden'], locationId: null } },
    players: { aria: { id: 'aria', name: 'Aria Vell', aliases: ['Silver Fox'], stats: [], registeredVersion: 2 } },
    bible: { text: 'The Iron Council rules the north.', dmOnly: 'The Pale King lives.' },
    glossary: { 'ember gate': { term: 'Ember Gate', definition: null, hidden: true } },
  };

  it('locations, NPCs and players with their aliases (an alias’s article dropped), bible coinages, overrides and glossary terms, any case', () => {
    const known = knownTermsOf(state, ['void-chisel']);
    const text =
      'At Stormwatch Keep, Mira Stone and the Warden greet Aria Vell, the Silver Fox. The IRON COUNCIL fears the Pale King, ' +
      'the Ember Gate and the VOID-CHISEL, but not the Probability Engine.';
    expect(extractCoinedTerms(text, (t) => known.has(t))).toEqual(['Probability Engine']);
  });

  it('knows every term the bible coins, past the per-message cap', () => {
    const names = Array.from({ length: 5 * MAX_NEW_TERMS_PER_MESSAGE }, (_v, i) => camel(i));
    const known = knownTermsOf({ ...state, bible: { text: `The roster: ${names.join(', ')}.`, dmOnly: '' } }, []);
    expect(names.every((n) => known.has(n))).toBe(true);
  });

  it('grows as terms are added', () => {
    const known = knownTermsOf(emptyState('c'), []);
    expect(known.has('Geometers')).toBe(false);
    known.add('Geometers');
    expect(known.has('GEOMETERS')).toBe(true);
  });
});

describe('variantKey (hidden terms stay hidden in their spellings)', () => {
  it.each([
    ['Obsidian Syndicate', 'Obsidian-Syndicate'],
    ['Obsidian Syndicate', 'obsidian syndicates'],
    ['Obsidian Syndicate', "Obsidian Syndicate's"],
    ['Obsidian Syndicate', 'OBSIDIAN_SYNDICATE'],
    ['Iron Fox', 'Iron Foxes'],
    ['Glass Fortress', 'Glass Fortresses'],
    ['Void Chisel', 'Void–Chisel'],
  ])('%s ~ %s', (a, b) => expect(variantKey(a)).toBe(variantKey(b)));

  it('keeps different names apart', () => {
    expect(variantKey('Glass Fortress')).not.toBe(variantKey('Glass Fort'));
    expect(variantKey('Obsidian Syndicate')).not.toBe(variantKey('Obsidian Syndic'));
  });
});

describe('capDefinition: a glossary definition stays short whatever the text', () => {
  it('keeps a normal definition as it is, and cuts one of more than 20 words', () => {
    expect(capDefinition('The Tide Court rules the harbour.')).toBe('The Tide Court rules the harbour.');
    const long = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
    expect(capDefinition(long).split(' ')).toHaveLength(20);
  });

  it('cuts a run without spaces to MAX_DEFINITION_CHARS code points, never inside an emoji', () => {
    const run = `VOIDCHISEL ${'x'.repeat(16_000)}`;
    const cut = capDefinition(run);
    expect(Array.from(cut)).toHaveLength(MAX_DEFINITION_CHARS);
    expect(cut.endsWith('…')).toBe(true);
    const emoji = capDefinition('🐉'.repeat(5_000));
    expect(
      Array.from(emoji)
        .slice(0, -1)
        .every((c) => c === '🐉'),
    ).toBe(true);
  });
});
