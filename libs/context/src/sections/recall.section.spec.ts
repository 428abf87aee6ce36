import { recallQuery } from '@app/search';
import { Candidate, numberVariants, queryDates, rankMessages, withoutFrame, withStemPrefixes } from './recall.section';

describe('withStemPrefixes', () => {
  it('turns words of 5+ letters into prefixes without a common suffix; short words stay exact', () => {
    expect(
      withStemPrefixes(recallQuery('When did Melanie paint? She painted sunrises and stories, totally happily')!),
    ).toEqual({
      kind: 'or',
      children: [
        // A final "e" is cut like a suffix (issue 30, fifth pass): "melani*" still finds Melanie.
        { kind: 'word', word: 'melani', prefix: true },
        { kind: 'word', word: 'paint', prefix: true },
        { kind: 'word', word: 'paint', prefix: true },
        { kind: 'word', word: 'sunris', prefix: true },
        { kind: 'word', word: 'stori', prefix: true },
        { kind: 'word', word: 'story', prefix: false },
        { kind: 'word', word: 'total', prefix: true },
        { kind: 'word', word: 'happi', prefix: true },
      ],
    });
    expect(withStemPrefixes(recallQuery('notes on water')!)).toEqual({
      kind: 'or',
      children: [
        { kind: 'word', word: 'notes', prefix: true },
        { kind: 'word', word: 'water', prefix: true },
      ],
    });
    expect(withStemPrefixes(recallQuery('the map')!)).toEqual({
      kind: 'or',
      children: [
        { kind: 'word', word: 'map', prefix: false },
        { kind: 'word', word: 'maps', prefix: false },
      ],
    });
  });

  it('a word of 4 letters is a prefix as it is ("play" finds "playing"); shorter words and numbers stay exact', () => {
    expect(withStemPrefixes(recallQuery('play')!)).toEqual({ kind: 'word', word: 'play', prefix: true });
    expect(withStemPrefixes(recallQuery('2023')!)).toEqual({ kind: 'word', word: '2023', prefix: false });
    expect(withStemPrefixes(recallQuery('art')!)).toEqual({
      kind: 'or',
      children: [
        { kind: 'word', word: 'art', prefix: false },
        { kind: 'word', word: 'arts', prefix: false },
      ],
    });
  });

  it('a short word also looks up its other number, exactly; "-y" and "-ies" find each other', () => {
    expect(withStemPrefixes(recallQuery('pets')!)).toEqual({
      kind: 'or',
      children: [
        { kind: 'word', word: 'pets', prefix: true },
        { kind: 'word', word: 'pet', prefix: false },
      ],
    });
    expect(numberVariants('cat')).toEqual(['cats']);
    expect(numberVariants('pets')).toEqual(['pet']);
    expect(numberVariants('glass')).toEqual([]);
    expect(numberVariants('bus')).toEqual([]);
    expect(numberVariants('hobby')).toEqual(['hobbies']);
    expect(numberVariants('stories')).toEqual(['story']);
    expect(numberVariants('toy')).toEqual(['toys']);
    expect(numberVariants('2023')).toEqual([]);
    expect(numberVariants('painting')).toEqual([]);
  });
});

describe('withStemPrefixes, fifth pass', () => {
  const words = (q: string) => {
    const node = withStemPrefixes(recallQuery(q)!);
    return node.kind === 'or' ? node.children.map((c) => (c.kind === 'word' ? c.word : '')) : [];
  };

  it('cuts a final "e" and derivational suffixes, so a word finds its other forms', () => {
    // dance → danc* finds "dancing"; adoption → adop* finds "adopted"; creative → creat* finds "created".
    expect(words('dance adoption creative excitement happiness activity helpful')).toEqual([
      'danc',
      'adop',
      'creat',
      'excite',
      'happi',
      'activ',
      'help',
    ]);
    // Too short a stem keeps the word whole.
    expect(words('station nation olive')).toEqual(['station', 'nation', 'olive']);
  });

  it('leaves out "kind of", "type of", "sort of" (they frame what is asked), unless nothing else is left', () => {
    const framed = (q: string) => withoutFrame(recallQuery(q)!, q);
    expect(framed('What kind of art does Caroline make?')).toEqual({
      kind: 'or',
      children: [
        { kind: 'word', word: 'art', prefix: false },
        { kind: 'word', word: 'caroline', prefix: false },
        { kind: 'word', word: 'make', prefix: false },
      ],
    });
    expect(framed('kind of')).toEqual({ kind: 'word', word: 'kind', prefix: false });
    // "kind" that frames nothing stays.
    expect(framed('a kind word')).toEqual(recallQuery('a kind word'));
  });
});

describe('queryDates', () => {
  it('reads a day of a month in either order, with or without a year, ordinal or comma', () => {
    expect(queryDates('What did Gina find on 1 February, 2023?')).toEqual([{ day: 1, month: 1, year: 2023 }]);
    expect(queryDates('What painting did Melanie show on October 13, 2023?')).toEqual([
      { day: 13, month: 9, year: 2023 },
    ]);
    expect(queryDates('the 3rd of May')).toEqual([{ day: 3, month: 4, year: undefined }]);
    expect(queryDates('May 23')).toEqual([{ day: 23, month: 4, year: undefined }]);
  });

  it('reads a month alone when no day is named; "may" is a month only with a year', () => {
    expect(queryDates('When did Melanie go camping in June?')).toEqual([{ month: 5, year: undefined }]);
    expect(queryDates('What setback did she face in October 2023?')).toEqual([{ month: 9, year: 2023 }]);
    expect(queryDates('Who may know the way?')).toEqual([]);
    expect(queryDates('in May 2023')).toEqual([{ month: 4, year: 2023 }]);
    expect(queryDates('What happened in 2023 on day 40?')).toEqual([]);
    expect(queryDates('on 45 June')).toEqual([{ month: 5, year: undefined }]);
  });
});

describe('rankMessages', () => {
  const hit = (ref: number, score: number, group: string, speaker: string, createdAt: string): Candidate => ({
    entry: { ref: String(ref), group, createdAt, text: `${speaker}: line ${ref}` },
    score,
    kind: 0,
    speaker,
  });
  const scores = (c: Candidate[]) => Object.fromEntries(c.map((x) => [x.entry.ref, Math.round(x.score * 1000) / 1000]));

  it('adds 0.3 × the share of hit scores on the same round and day, relative to the busiest, then rescales to the best', () => {
    const hits = [
      hit(1, 1, 'round 1 · 1 May 2023', 'Aria', '2023-05-01T10:00:00Z'),
      hit(7, 0.5, 'round 2 · 8 May 2023', 'Aria', '2023-05-08T10:00:00Z'),
      hit(8, 0.5, 'round 2 · 8 May 2023', 'Aria', '2023-05-08T10:00:00Z'),
    ];
    // round 1: 1 + 0.3 × 1/1 = 1.3; round 2: 0.5 + 0.3 × 1/1 = 0.8 each (both rounds hold 1.0 of score).
    expect(scores(rankMessages(hits, ['line'], 'line'))).toEqual({ 1: 1, 7: 0.615, 8: 0.615 });
    const lone = [
      hit(1, 1, 'round 1 · 1 May 2023', 'Aria', '2023-05-01T10:00:00Z'),
      hit(7, 0.9, 'round 2 · 8 May 2023', 'Aria', '2023-05-08T10:00:00Z'),
      hit(8, 0.9, 'round 2 · 8 May 2023', 'Aria', '2023-05-08T10:00:00Z'),
    ];
    // The busier round wins: 0.9 + 0.3 = 1.2 against 1 + 0.3 × 1/1.8.
    const ranked = rankMessages(lone, ['line'], 'line');
    expect(ranked.map((c) => c.entry.ref)).toEqual(['1', '7', '8']);
    expect(ranked[1].score).toBe(1);
    expect(ranked[0].score).toBeCloseTo((1 + 0.3 / 1.8) / 1.2, 6);
  });

  it('doubles the messages of a speaker the query names', () => {
    const hits = [hit(1, 1, 'a', 'Aria', '2023-05-01T10:00:00Z'), hit(2, 0.8, 'b', 'Brannoc', '2023-05-02T10:00:00Z')];
    const ranked = scores(rankMessages(hits, ['brannoc', 'line'], 'what did Brannoc find on the line'));
    expect(ranked[2]).toBeGreaterThan(ranked[1]);
    // Aria: 1 + 0.3 × 1/1.6; Brannoc: 1.6 + 0.3 × 1.6/1.6; rescaled to the best.
    expect(ranked).toEqual({ 1: Math.round((1.1875 / 1.9) * 1000) / 1000, 2: 1 });
  });

  it('weighs at 0.3 a message matched only by a named speaker: "Thanks, Brannoc!" says nothing of the well', () => {
    const said = (ref: number, score: number, speaker: string, text: string): Candidate => ({
      entry: { ref: String(ref), group: `g${ref}`, text: `${speaker}: ${text}`, body: text },
      score,
      kind: 0,
      speaker,
    });
    const hits = [
      said(1, 1, 'Aria', 'Thanks, Brannoc!'),
      said(2, 0.5, 'Aria', 'Brannoc, the well is dry.'),
      said(3, 0.4, 'Brannoc', 'Nothing down there.'),
    ];
    const ranked = scores(rankMessages(hits, ['brannoc', 'well'], 'what did Brannoc find at the well'));
    // Brannoc's own line is doubled, but matched by his name alone: 0.4 × 2 × 0.3.
    // Each hit is alone on its day: + 0.3 × its score / the best day's.
    const raw = { 1: 0.3 + (0.3 * 0.3) / 0.5, 2: 0.5 + 0.3, 3: 0.24 + (0.3 * 0.24) / 0.5 };
    const rel = (x: number) => Math.round((x / raw[2]) * 1000) / 1000;
    expect(ranked).toEqual({ 1: rel(raw[1]), 2: 1, 3: rel(raw[3]) });
    // A query naming nobody else has nothing to tell them apart by: no factor.
    expect(scores(rankMessages(hits.slice(0, 1), ['brannoc'], 'Brannoc?'))).toEqual({ 1: 1 });
  });

  it('a short name the query writes ("Mel") names its speaker; a lower-case word never does', () => {
    const said = (ref: number, score: number, speaker: string, text: string): Candidate => ({
      entry: { ref: String(ref), group: `g${ref}`, text: `${speaker}: ${text}`, body: text },
      score,
      kind: 0,
      speaker,
    });
    const hits = [said(1, 1, 'Caroline', 'The pottery class was fun.'), said(2, 1, 'Melanie', 'My pottery is drying.')];
    const mel = scores(rankMessages(hits, ['mel', 'pottery'], 'What pottery did Mel make?'));
    expect(mel[2]).toBeGreaterThan(mel[1]);
    // "car" in lower case is a car, not Caroline.
    const car = scores(rankMessages(hits, ['car', 'pottery'], 'what pottery did the car carry?'));
    expect(car[1]).toBe(car[2]);
  });

  it('multiplies by 4 the messages said on the day the query names, or in the month', () => {
    const hits = [
      hit(1, 1, 'a', 'Aria', '2023-05-01T10:00:00Z'),
      hit(2, 0.5, 'b', 'Aria', '2023-10-13T18:00:00Z'),
      hit(3, 0.5, 'c', 'Aria', '2023-10-14T18:00:00Z'),
    ];
    const onDay = rankMessages(hits, ['painting'], 'What painting did she show on October 13, 2023?');
    // 13 October: 0.5 × 4 + 0.3 × 0.5/1 = 2.15, the best; the others keep 1 + 0.3 and 0.5 + 0.15.
    expect(onDay.map((c) => Math.round(c.score * 1000) / 1000)).toEqual(
      [1.3 / 2.15, 1, 0.65 / 2.15].map((x) => Math.round(x * 1000) / 1000),
    );
    const inMonth = rankMessages(hits, ['painting'], 'What painting did she show in October?');
    expect(inMonth[1].score).toBe(inMonth[2].score);
    expect(inMonth[1].score).toBe(1);
    expect(
      rankMessages(hits, ['painting'], 'What painting did she show in October 2022?').map(
        (c) => c.entry.ref === '1' && c.score,
      ),
    ).toContain(1);
  });

  it('returns no hits for no hits', () => {
    expect(rankMessages([], ['x'], 'x')).toEqual([]);
  });
});
