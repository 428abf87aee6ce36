import { recallQuery } from '@app/search';
import { withStemPrefixes } from './recall.section';

describe('withStemPrefixes', () => {
  it('turns words of 5+ letters into prefixes without a common suffix; short words stay exact', () => {
    expect(withStemPrefixes(recallQuery('When did Melanie paint? She painted sunrises and stories, totally happily')!)).toEqual({
      kind: 'or',
      children: [
        { kind: 'word', word: 'melanie', prefix: true },
        { kind: 'word', word: 'paint', prefix: true },
        { kind: 'word', word: 'paint', prefix: true },
        { kind: 'word', word: 'sunris', prefix: true },
        { kind: 'word', word: 'stori', prefix: true },
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
    expect(withStemPrefixes(recallQuery('the map')!)).toEqual({ kind: 'word', word: 'map', prefix: false });
  });
});
