import { answerRecall, contentWords, SMALL_STOP_WORDS, wordSet } from './answer-recall';

describe('LoCoMo answer-word recall', () => {
  it('keeps lower-cased alphanumeric content words and drops stop words', () => {
    expect(contentWords('The LGBTQ support group, on 7 May 2023!')).toEqual([
      'lgbtq',
      'support',
      'group',
      '7',
      'may',
      '2023',
    ]);
  });

  it('scores the share of answer words present in the served text', () => {
    const served = wordSet('- 2026-11-23 07:40 — Caroline went to the LGBTQ support group in May 2023.');
    expect(answerRecall('7 May 2023', served)).toBeCloseTo(2 / 3);
    expect(answerRecall('LGBTQ support group', served)).toBe(1);
    expect(answerRecall('a painting of a sunset', served)).toBe(0);
  });

  it('has no score for an answer made only of stop words', () => {
    expect(answerRecall('Yes, she did', wordSet('anything'))).toBeNull();
  });
});

describe('LoCoMo answer-word recall, second metric (smaller stop-word list)', () => {
  it('counts words the first list drops, such as "not", "after" and "yes"', () => {
    const served = wordSet('She waited until the race.');
    // First metric: "not" and "after" are stop words, "until" is found. Second: "not" counts, and is missing.
    expect(answerRecall('Not until after', served)).toBe(1);
    expect(answerRecall('Not until after', served, SMALL_STOP_WORDS)).toBe(1 / 2);
    expect(answerRecall('Yes, she did', wordSet('anything'), SMALL_STOP_WORDS)).toBe(0);
  });
});
