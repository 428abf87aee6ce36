import { LocalSummarizer } from './local.summarizer';
import { summarizerContract } from './testing/summarizer.contract';
import { TranscriptLine } from './summarizer.port';

const line = (
  index: number,
  content: string,
  speaker: string | null = null,
  role = speaker ? 'npc' : 'dm',
): TranscriptLine => ({
  index,
  role,
  speaker,
  content,
  at: `2026-01-01T10:0${index % 10}:00.000Z`,
});

const tavern: TranscriptLine[] = [
  line(0, 'The tavern is warm and smells of bread. A fire crackles.'),
  line(1, 'hello there, anything going on?', null, 'player'),
  line(2, 'Well. Brannoc the smith owes me 30 gold and refused to pay. Such is life.', 'Mira'),
  line(3, 'We promised Mira to recover the debt from Brannoc by Friday.', null, 'player'),
  line(4, 'It is raining outside.'),
];

summarizerContract(
  'local (offline)',
  async () => ({ summarizer: new LocalSummarizer(), close: async () => undefined }),
  'local',
);

describe('LocalSummarizer', () => {
  const local = new LocalSummarizer();
  const location = { id: 'loc-tavern', name: 'The Rusty Anchor' };

  it('summarizes a location with its name first and the sentences that carry names, numbers and outcomes', async () => {
    const { text } = await local.summarizeLocation({ campaignId: 'c1', location, messages: tavern });
    expect(text).toBe(
      'At The Rusty Anchor: Mira: Brannoc the smith owes me 30 gold and refused to pay. ' +
        'Player: We promised Mira to recover the debt from Brannoc by Friday.',
    );
  });

  it('keeps picked sentences in their original order and leaves filler out', async () => {
    const { text } = await local.summarizeLocation({ campaignId: 'c1', location, messages: tavern });
    expect(text.indexOf('owes me 30 gold')).toBeLessThan(text.indexOf('promised Mira'));
    expect(text).not.toContain('hello there');
    expect(text).not.toContain('Such is life');
    expect(text).not.toContain('raining');
  });

  it('is deterministic: same input, byte-identical output', async () => {
    const input = { campaignId: 'c1', location, messages: tavern };
    const runs = await Promise.all([1, 2, 3].map(() => new LocalSummarizer().summarizeLocation(input)));
    expect(new Set(runs.map((r) => JSON.stringify(r))).size).toBe(1);
  });

  it('estimates tokens as ceil(chars / 4)', async () => {
    const messages = [line(0, 'The party found 12 gold coins in the chest.')];
    const r = await local.summarizeLocation({ campaignId: 'c1', location: { id: 'l', name: 'Crypt' }, messages });
    expect(r.inputTokens).toBe(Math.ceil(messages[0].content.length / 4));
    expect(r.outputTokens).toBe(Math.ceil(r.text.length / 4));
  });

  it('says nothing happened rather than returning an empty summary', async () => {
    const r = await local.summarizeLocation({ campaignId: 'c1', location, messages: [line(0, '   ')] });
    expect(r.text).toBe('At The Rusty Anchor: nothing of note happened.');
  });

  it('focuses an NPC summary on sentences naming the NPC by name or alias, whole word only', async () => {
    const messages = [
      line(0, 'The old smith hammers away. Nobody notices.'),
      line(1, 'The Hammer agreed to forge a blade for 50 gold.'),
      line(2, 'Brannock the baker sold 3 loaves to Ysolde.'),
      line(3, 'The dragon Vyrax burned the northern farms and killed 12 sheep.'),
      line(4, 'We thank brannoc and leave.', null, 'player'),
    ];
    const { text } = await local.summarizeNpc({
      campaignId: 'c1',
      npc: { id: 'npc-brannoc', name: 'Brannoc', aliases: ['the Hammer'] },
      location: { id: 'loc-forge', name: 'The Forge' },
      messages,
    });
    expect(text).toBe(
      "Brannoc's memory of The Forge: The Hammer agreed to forge a blade for 50 gold. Player: We thank brannoc and leave.",
    );
    expect(text).not.toContain('Vyrax');
    expect(text).not.toContain('Brannock');
  });

  it("counts an NPC's own lines as mentioning it", async () => {
    const messages = [
      line(0, 'The road is long.'),
      line(1, 'I will give you the key to the vault of Orin.', 'Brannoc'),
    ];
    const { text } = await local.summarizeNpc({
      campaignId: 'c1',
      npc: { id: 'n', name: 'Brannoc', aliases: [] },
      location: null,
      messages,
    });
    expect(text).toBe("Brannoc's memory: Brannoc: I will give you the key to the vault of Orin.");
  });

  it('starts a world summary with the event description', async () => {
    const { text } = await local.summarizeWorld({
      campaignId: 'c1',
      kind: 'quest_completed',
      event: "Quest 'Find the Relic' completed",
      messages: tavern,
    });
    expect(text.startsWith("Quest 'Find the Relic' completed. ")).toBe(true);
    expect(text).toContain('owes me 30 gold');
  });

  it('merges a rolling summary with new key sentences within maxWords, dropping the oldest first', async () => {
    const previousSummary = 'The party arrived in Rivermoor. They met Mira at the Rusty Anchor.';
    const full = await local.summarizeRolling({ campaignId: 'c1', previousSummary, messages: tavern, maxWords: 200 });
    expect(full.text.startsWith(previousSummary)).toBe(true);
    expect(full.text).toContain('owes me 30 gold');

    const tight = await local.summarizeRolling({ campaignId: 'c1', previousSummary, messages: tavern, maxWords: 31 });
    expect(tight.text.split(' ').length).toBeLessThanOrEqual(31);
    expect(tight.text).not.toContain('arrived in Rivermoor');
    expect(tight.text).toContain('They met Mira');
  });

  it('cuts a rolling summary at maxWords with an ellipsis when the new events alone are longer', async () => {
    const r = await local.summarizeRolling({ campaignId: 'c1', previousSummary: null, messages: tavern, maxWords: 5 });
    expect(r.text).toBe('Mira: Brannoc the smith owes…');
  });

  it('defines a term by the shortest clause around its first use, case-insensitively, at most 25 words', async () => {
    const messages = [
      line(
        0,
        'We rest. The Pale Court rules the city from beneath and every guild in town pays them a tithe of silver each month, or else.',
      ),
      line(1, 'The pale court again!', null, 'player'),
    ];
    const { text } = await local.defineTerm({ campaignId: 'c1', term: 'pale court', messages });
    expect(text).toBe('The Pale Court rules the city from beneath.');
  });

  it('gives two terms coined in one sentence each its own clause; a short clause takes its neighbour', async () => {
    const messages = [
      line(
        0,
        'Brannoc hefts the VoidChisel, a blade that cuts stone like butter, while the Probability Engine hums below the floor.',
      ),
    ];
    const chisel = await local.defineTerm({ campaignId: 'c1', term: 'VoidChisel', messages });
    const engine = await local.defineTerm({ campaignId: 'c1', term: 'Probability Engine', messages });
    // An apposition says what a term is.
    expect(chisel.text).toBe('A blade that cuts stone like butter.');
    expect(engine.text).toBe('The Probability Engine hums below the floor.');
    const long = [line(0, `${'word '.repeat(40)}the Geometers ${'more '.repeat(40)}end.`)];
    const cut = (await local.defineTerm({ campaignId: 'c1', term: 'Geometers', messages: long })).text;
    expect(cut).toContain('Geometers');
    expect(cut.split(' ').length).toBeLessThanOrEqual(25);
  });

  it('does not re-prefix when merging its own chunk summaries', async () => {
    const messages: TranscriptLine[] = [
      { index: 10, role: 'summary', speaker: null, content: 'At Crypt: The party found 3 keys.', at: 'x' },
      { index: 20, role: 'summary', speaker: null, content: 'At Crypt: Mira opened the vault of Orin.', at: 'y' },
    ];
    const { text } = await local.summarizeLocation({
      campaignId: 'c1',
      location: { id: 'l', name: 'Crypt' },
      messages,
    });
    expect(text).toBe('At Crypt: The party found 3 keys. Mira opened the vault of Orin.');
  });

  it('honours an aborted signal', async () => {
    await expect(
      local.summarizeLocation({ campaignId: 'c1', location, messages: tavern }, AbortSignal.abort()),
    ).rejects.toThrow();
  });
});
