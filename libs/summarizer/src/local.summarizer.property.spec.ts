import fc from 'fast-check';
import { balancedMarks, sentenceKey, splitSentences } from './key-sentences';
import { LocalSummarizer } from './local.summarizer';
import { TranscriptLine } from './summarizer.port';

/**
 * DESIGN §8 "The offline summarizer writes whole sentences", as properties over generated scenes: quotations, brackets
 * and nested punctuation inside them, repeated lines, long speeches.
 */
const word = fc.constantFrom(
  'Mira',
  'Vell',
  'the',
  'gallery',
  'key',
  'three',
  'silver',
  'coins',
  'gave',
  'promised',
  'door',
  '12',
  'gold',
  'slowly',
  'Drowned',
  'Altar',
  'watch',
);
const words = (min: number, max: number) => fc.array(word, { minLength: min, maxLength: max }).map((w) => w.join(' '));
const end = fc.constantFrom('.', '!', '?', '…');
/** A plain clause, or one wrapped in marks that may hold sentence ends of their own ("Stop. Now." / (see above!)). */
const clause: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: words(1, 8) },
  { weight: 1, arbitrary: fc.tuple(words(1, 6), end, words(1, 6), end).map(([a, e, b, f]) => `"${a}${e} ${b}${f}"`) },
  { weight: 1, arbitrary: fc.tuple(words(1, 6), end, words(0, 4)).map(([a, e, b]) => `“${a}${e}${b ? ` ${b}` : ''}”`) },
  { weight: 1, arbitrary: fc.tuple(words(1, 5), end, words(1, 3)).map(([a, e, b]) => `(${a}${e} [${b}])`) },
  { weight: 1, arbitrary: words(45, 70) },
);
const sentence = fc.tuple(fc.array(clause, { minLength: 1, maxLength: 3 }), end).map(([c, e]) => `${c.join(' ')}${e}`);
const content = fc.array(sentence, { minLength: 1, maxLength: 4 }).map((s) => s.join(' '));
const line = fc.record({ speaker: fc.constantFrom('Aria', 'Mira Vell', null), content });
/** A scene, sometimes with a line said twice. */
const scene = fc.tuple(fc.array(line, { minLength: 1, maxLength: 8 }), fc.boolean()).map(([lines, repeat]) => {
  const all = repeat ? [...lines, lines[0]] : lines;
  return all.map((l, index): TranscriptLine => ({
    index,
    role: l.speaker ? 'player' : 'dm',
    speaker: l.speaker,
    content: l.content,
    at: '1490-05-01T18:00:00.000Z',
  }));
});

const local = new LocalSummarizer();
const countWords = (t: string) => t.split(/\s+/).filter(Boolean).length;

function expectWholeSentences(text: string, maxWords: number): void {
  expect(balancedMarks(text)).toBe(true);
  expect(countWords(text)).toBeLessThan(maxWords);
  const keys = splitSentences(text).map(sentenceKey);
  expect(new Set(keys).size).toBe(keys.length);
}

describe('LocalSummarizer writes whole sentences (DESIGN §8, property)', () => {
  it('location, NPC and world memories: balanced marks, no sentence twice, under 60 words', async () => {
    await fc.assert(
      fc.asyncProperty(scene, async (messages) => {
        const location = await local.summarizeLocation({
          campaignId: 'c',
          location: { id: 'inn', name: 'The Gilded Goose' },
          messages,
        });
        const npc = await local.summarizeNpc({
          campaignId: 'c',
          npc: { id: 'mira', name: 'Mira Vell', aliases: [] },
          location: { id: 'inn', name: 'The Gilded Goose' },
          messages,
        });
        const world = await local.summarizeWorld({
          campaignId: 'c',
          kind: 'location_cleared',
          event: 'The Sunken Gallery was cleared',
          messages,
        });
        for (const r of [location, npc, world]) expectWholeSentences(r.text, 60);
      }),
      { numRuns: 300, seed: 17 },
    );
  });

  it('"Previously": balanced marks and no sentence twice within its word limit, merged with a previous summary', async () => {
    await fc.assert(
      fc.asyncProperty(scene, scene, fc.integer({ min: 30, max: 150 }), async (first, second, maxWords) => {
        const a = await local.summarizeRolling({ campaignId: 'c', previousSummary: null, messages: first, maxWords });
        const b = await local.summarizeRolling({
          campaignId: 'c',
          previousSummary: a.text,
          messages: second,
          maxWords,
        });
        for (const r of [a, b]) expectWholeSentences(r.text, maxWords + 1);
      }),
      { numRuns: 200, seed: 18 },
    );
  });

  it('prefers a sentence that changes something over scene-setting', async () => {
    const messages: TranscriptLine[] = [
      {
        index: 0,
        role: 'dm',
        content: 'The room is dim and quiet. Dust hangs in the air. A draught moves the curtains.',
        at: '1490-05-01T18:00:00.000Z',
      },
      {
        index: 1,
        role: 'player',
        speaker: 'Aria',
        content: 'Aria promised Mira Vell 12 gold for the key.',
        at: '1490-05-01T18:01:00.000Z',
      },
      { index: 2, role: 'dm', content: 'The candles flicker.', at: '1490-05-01T18:02:00.000Z' },
    ];
    const r = await local.summarizeLocation({
      campaignId: 'c',
      location: { id: 'inn', name: 'The Gilded Goose' },
      messages,
    });
    expect(r.text).toContain('Aria promised Mira Vell 12 gold for the key.');
  });

  it('never cuts inside a quotation: a speech too long for the limit is passed over, not cut open', async () => {
    const speech = `"${Array(70).fill('on').join(' ')} and on."`;
    const messages: TranscriptLine[] = [
      {
        index: 0,
        role: 'npc',
        speaker: 'Mira Vell',
        content: `${speech} Mira gave Aria the key.`,
        at: '1490-05-01T18:00:00.000Z',
      },
    ];
    const r = await local.summarizeNpc({
      campaignId: 'c',
      npc: { id: 'mira', name: 'Mira Vell', aliases: [] },
      location: null,
      messages,
    });
    expect(r.text).toBe("Mira Vell's memory: Mira Vell: Mira gave Aria the key.");
  });
});
