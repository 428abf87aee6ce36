import { extractCoinedTerms, firstSentenceWith, MAX_NEW_TERMS_PER_MESSAGE, MAX_TERM_CHARS } from './coined-terms';

const none = () => false;
const terms = (text: string, known: (term: string) => boolean = none) => extractCoinedTerms(text, known);

/** A distinct CamelCase name per number ("ZarbaKel"): each one a coined term. */
const camel = (i: number) => `Zar${i.toString(26).replace(/./g, (d) => String.fromCharCode(97 + parseInt(d, 26)))}Kel`;

describe('extractCoinedTerms', () => {
  it('finds a run of two or more capitalised words', () => {
    expect(terms('Mira met the Probability Engine.')).toEqual(['Probability Engine']);
    expect(terms('They say Iron Mother Vessa rules there.')).toEqual(['Iron Mother Vessa']);
  });

  it('finds a capitalised word after a lower-case "the"', () => {
    expect(terms('the Geometers want the Void-Chisel')).toEqual(['Geometers', 'Void-Chisel']);
    expect(terms('Nobody trusts the Geometers anymore.')).toEqual(['Geometers']);
  });

  it('treats a sentence-initial "The X" like "the X"', () => {
    expect(terms('The Geometers left at dawn.')).toEqual(['Geometers']);
    expect(terms('We ran. The Probability Engine hummed.')).toEqual(['Probability Engine']);
  });

  it('finds CamelCase words mid-sentence and at a sentence start', () => {
    expect(terms('She lifted a VoidChisel from the crate.')).toEqual(['VoidChisel']);
    expect(terms('VoidChisel shards glittered.')).toEqual(['VoidChisel']);
  });

  it('finds ALL-CAPS words of three or more letters, even at a sentence start', () => {
    expect(terms('They fled. NEXUS agents followed')).toEqual(['NEXUS']);
    expect(terms('the crates bore an OX mark')).toEqual([]);
  });

  it('ignores shouted ordinary words', () => {
    expect(terms('STOP! THE door is open.')).toEqual([]);
  });

  it('joins capitalised words across a hyphen into one term', () => {
    expect(terms('He swung a Void-Chisel at it.')).toEqual(['Void-Chisel']);
    expect(terms('Mira met Tovin at a well-known tavern.')).toEqual([]);
  });

  it('counts a sentence-initial capitalised word as the start of a run', () => {
    expect(terms('Probability Engine hums in the dark.')).toEqual(['Probability Engine']);
  });

  it('never makes a term of a sentence-initial word alone', () => {
    expect(terms('Mira laughed. Tovin did not.')).toEqual([]);
    expect(terms('"Beware," said Mira.')).toEqual([]);
  });

  it('does not let function words or sentence openers start a run', () => {
    expect(terms('When Mira Vance arrived. Suddenly Tovin Drask spoke.')).toEqual(['Mira Vance', 'Tovin Drask']);
    expect(terms('Slowly Mira Vance turned.')).toEqual(['Mira Vance']);
    expect(terms('But Probability Engine failed.')).toEqual(['Probability Engine']);
  });

  it('finds nothing in plain sentences, the pronoun I or single letters', () => {
    expect(terms('I saw it.')).toEqual([]);
    expect(terms('Then I ran, and I hid behind a wall.')).toEqual([]);
    expect(terms('Mira wrote X on the map.')).toEqual([]);
  });

  it('skips known terms, whatever their case', () => {
    const known = new Set(['probability engine', 'geometers']);
    const isKnown = (term: string) => known.has(term.toLowerCase());
    expect(terms('The GEOMETERS fear the Probability Engine and the Void-Chisel.', isKnown)).toEqual(['Void-Chisel']);
  });

  it('reports each term once, in first-seen order, keeping the first-seen form', () => {
    expect(terms('the Void-Chisel cut. the VOID-CHISEL broke. the Geometers saw the Void-Chisel')).toEqual([
      'Void-Chisel',
      'Geometers',
    ]);
  });

  it('asks `known` once per distinct term', () => {
    const asked: string[] = [];
    terms('the Geometers and the geometers and the Geometers', (t) => {
      asked.push(t);
      return true;
    });
    expect(asked).toEqual(['Geometers']);
  });

  it('reads terms inside quotes and punctuation', () => {
    expect(terms('"Have you seen the Void-Chisel?" asked Mira.')).toEqual(['Void-Chisel']);
    expect(terms("It lies beyond (the Shattered Gate), past NEXUS's wall.")).toEqual(['Shattered Gate', 'NEXUS']);
    expect(terms("We found the Engine's core.")).toEqual(['Engine']);
  });

  it('does not join words across punctuation or a sentence end', () => {
    expect(terms('...the Tower. Guards came')).toEqual(['Tower']);
    expect(terms('She met Mira, Tovin and Drask.')).toEqual([]);
    expect(terms('He bowed to the Tower\nGuards came')).toEqual(['Tower']);
  });

  it('continues a run with a single capital letter but never starts one with it', () => {
    expect(terms('They chose Plan B quickly.')).toEqual(['Plan B']);
  });

  it('handles accented and non-Latin capitals', () => {
    expect(terms('They sailed to Écume Noire and met the Ørsted.')).toEqual(['Écume Noire', 'Ørsted']);
    expect(terms('東京 is far; the Дом stands.')).toEqual(['Дом']);
  });

  it('returns nothing for empty text', () => {
    expect(terms('')).toEqual([]);
  });

  it('coins at most MAX_NEW_TERMS_PER_MESSAGE terms a message, the first it uses', () => {
    const names = Array.from({ length: 400 }, (_v, i) => camel(i));
    const coined = terms(`They met ${names.join(', ')} at dawn.`);
    expect(coined).toEqual(names.slice(0, MAX_NEW_TERMS_PER_MESSAGE));
  });

  it('counts only new terms against the cap: known ones do not use it up', () => {
    const names = Array.from({ length: 3 * MAX_NEW_TERMS_PER_MESSAGE }, (_v, i) => camel(i));
    const known = new Set(names.slice(0, MAX_NEW_TERMS_PER_MESSAGE).map((n) => n.toLowerCase()));
    const coined = terms(names.join(' and '), (t) => known.has(t.toLowerCase()));
    expect(coined).toEqual(names.slice(MAX_NEW_TERMS_PER_MESSAGE, 2 * MAX_NEW_TERMS_PER_MESSAGE));
  });

  it('skips runs longer than MAX_TERM_CHARS (title-case prose, not names) without counting them', () => {
    const run = Array.from({ length: 30 }, (_v, i) => `Word${String.fromCharCode(97 + (i % 26))}`).join(' ');
    expect(run.length).toBeGreaterThan(MAX_TERM_CHARS);
    expect(terms(`we saw ${run}. Then the Geometers came.`)).toEqual(['Geometers']);
  });

  it('coins few terms from a run of mixed-script text (issue 18: one such message coined 407)', () => {
    let text = 'Mira says ';
    const alphabet = ['a', 'Ж', '中', '😀', 'é', '\u0301', '1', '.', '-', 'ß', 'ﬁ'];
    for (let s = 7; text.length < 16_000; s = (s * 1_103_515_245 + 12_345) % 2 ** 31)
      text += alphabet[(s >>> 8) % alphabet.length];
    expect(terms(text).length).toBeLessThanOrEqual(MAX_NEW_TERMS_PER_MESSAGE);
  });
});

describe('firstSentenceWith', () => {
  const text = 'Mira arrived. The Geometers want the Void-Chisel! Nobody knows why the geometers care.';

  it('returns the first sentence using the term, case-insensitively', () => {
    expect(firstSentenceWith(text, 'geometers')).toBe('The Geometers want the Void-Chisel!');
    expect(firstSentenceWith(text, 'VOID-CHISEL')).toBe('The Geometers want the Void-Chisel!');
  });

  it('matches whole words only', () => {
    expect(firstSentenceWith('The Geometersmith came. The Geometers left.', 'Geometers')).toBe('The Geometers left.');
  });

  it('matches a multi-word term across any whitespace', () => {
    expect(firstSentenceWith('It hums. The Probability \t Engine hums.', 'Probability Engine')).toBe(
      'The Probability Engine hums.',
    );
  });

  it('splits at line breaks too', () => {
    expect(firstSentenceWith('Heading\nThe NEXUS came', 'nexus')).toBe('The NEXUS came');
  });

  it('cuts to maxWords words and appends an ellipsis', () => {
    const long = 'The Probability Engine, ' + Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ') + '.';
    const cut = firstSentenceWith(long, 'Probability Engine');
    expect(cut.split(' ')).toHaveLength(20);
    expect(cut.endsWith('w16…')).toBe(true);
    expect(firstSentenceWith('The Probability Engine, it hums.', 'Probability Engine', 3)).toBe(
      'The Probability Engine…',
    );
  });

  it('does not cut a sentence of exactly maxWords words', () => {
    expect(firstSentenceWith('one two three NEXUS.', 'nexus', 4)).toBe('one two three NEXUS.');
  });

  it('treats regular-expression characters in the term literally', () => {
    expect(firstSentenceWith('Is it AAB? Is it (A+B)? Yes.', '(A+B)')).toBe('Is it (A+B)?');
    expect(firstSentenceWith('Is AxB here? Is A.B here?', 'A.B')).toBe('Is A.B here?');
  });

  it('returns an empty string when no sentence uses the term', () => {
    expect(firstSentenceWith(text, 'Tower')).toBe('');
    expect(firstSentenceWith(text, '   ')).toBe('');
  });
});
