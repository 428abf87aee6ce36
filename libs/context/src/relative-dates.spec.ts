import { annotateRelativeDates, MAX_DATE_MATCHES } from './relative-dates';

// Monday 8 May 2023, 13:56 story time.
const MONDAY = '2023-05-08T13:56:00.000Z';

describe('annotateRelativeDates', () => {
  it.each([
    ['I went to a support group yesterday.', 'I went to a support group yesterday [7 May 2023].'],
    ['Last night was fun', 'Last night [7 May 2023] was fun'],
    ['the day before yesterday we met', 'the day before yesterday [6 May 2023] we met'],
    ['See you tomorrow!', 'See you tomorrow [9 May 2023]!'],
    ['I ran a race two days ago', 'I ran a race two days ago [6 May 2023]'],
    ['I ran a race 3 days ago', 'I ran a race 3 days ago [5 May 2023]'],
    ['Last Friday I painted', 'Last Friday [5 May 2023] I painted'],
    ['next Monday I start', 'next Monday [15 May 2023] I start'],
    ['this past Sunday was calm', 'this past Sunday [7 May 2023] was calm'],
    ['last week I camped', 'last week [week of 1 May 2023] I camped'],
    ['a week ago I camped', 'a week ago [week of 1 May 2023] I camped'],
    ['last weekend we hiked', 'last weekend [weekend of 6 May 2023] we hiked'],
    ['next weekend we hike', 'next weekend [weekend of 13 May 2023] we hike'],
    ['next month I move', 'next month [June 2023] I move'],
    ['two months ago I moved', 'two months ago [March 2023] I moved'],
    ['last year I adopted a dog', 'last year [2022] I adopted a dog'],
    ['ten years ago I started', 'ten years ago [2013] I started'],
    ["I've had them for 3 years now", "I've had them for 3 years now [since 2020]"],
    ["I've known these friends for 4 years, since", "I've known these friends for 4 years [since 2019], since"],
    ['we have been together for about two months', 'we have been together for about two months [since March 2023]'],
    ['Seven years now, and I paint', 'Seven years now [since 2016], and I paint'],
  ])('%s', (text, annotated) => {
    expect(annotateRelativeDates(text, MONDAY)).toBe(annotated);
  });

  it('counts back across a month and a year', () => {
    expect(annotateRelativeDates('yesterday', '2024-01-01T09:00:00.000Z')).toBe('yesterday [31 December 2023]');
    expect(annotateRelativeDates('last month', '2024-01-15T09:00:00.000Z')).toBe('last month [December 2023]');
  });

  it('names the previous weekend on a Sunday and the previous Friday on a Friday', () => {
    const sunday = '2023-05-14T10:00:00.000Z';
    expect(annotateRelativeDates('last weekend', sunday)).toBe('last weekend [weekend of 6 May 2023]');
    expect(annotateRelativeDates('last Friday', '2023-05-12T10:00:00.000Z')).toBe('last Friday [5 May 2023]');
  });

  it('leaves spans up to now, vague counts and other words alone', () => {
    for (const text of [
      'over the last year I grew',
      'the last week was hard',
      'a few days ago',
      'several years ago',
      'the yesterdays of old',
      'at last, weekends',
      'He was part of our family for 10 years',
      'We were teammates for four years in high school',
      "I'll be away for two years",
    ])
      expect(annotateRelativeDates(text, MONDAY)).toBe(text);
  });

  it('is idempotent and leaves text alone without a story date', () => {
    const once = annotateRelativeDates('yesterday and last year', MONDAY);
    expect(once).toBe('yesterday [7 May 2023] and last year [2022]');
    expect(annotateRelativeDates(once, MONDAY)).toBe(once);
    expect(annotateRelativeDates('yesterday', undefined)).toBe('yesterday');
    expect(annotateRelativeDates('yesterday', 'not a date')).toBe('yesterday');
  });

  it('annotates at most MAX_DATE_MATCHES expressions of a message and leaves the rest of a hostile text as it is', () => {
    const text = 'two days ago '.repeat(1300).slice(0, 16_000);
    const out = annotateRelativeDates(text, MONDAY);
    expect(out.split('two days ago [6 May 2023]')).toHaveLength(MAX_DATE_MATCHES + 1);
    const cut = out.lastIndexOf('[6 May 2023]') + '[6 May 2023]'.length;
    expect(out.slice(cut)).toBe(text.slice(cut - MAX_DATE_MATCHES * ' [6 May 2023]'.length));
  });

  it('finds "for N years" after a present perfect up to eight words back, and not further', () => {
    expect(annotateRelativeDates("I've had them for 3 years", MONDAY)).toBe("I've had them for 3 years [since 2020]");
    const far = 'I have a b c d e f g h i for 3 years';
    expect(annotateRelativeDates(far, MONDAY)).toBe(far);
  });
});
