import { RecordingSummarizer } from '../../support/recording-summarizer';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

/** Three public messages per round; round 2 is where the DM coins "the Geometers" and the "Void-Chisel". */
function roundMessages(round: number) {
  const dm =
    round === 2
      ? 'A hooded envoy whispers that the Geometers want the Void-Chisel, a blade that cuts doors into stone.'
      : `The caravan rolls on through day ${round} of the journey under a grey sky.`;
  return [
    { role: 'dm', content: dm },
    { role: 'player', speaker: 'Aria', content: `Aria keeps watch during round ${round}.` },
    { role: 'player', speaker: 'Brannoc', content: `Brannoc counts the supplies, ${20 - round} rations left.` },
  ];
}

describe('rolling "Previously" summary (DESIGN §8)', () => {
  let t: TestApp;
  const summarizer = new RecordingSummarizer();
  beforeAll(async () => {
    t = await startTestApp({ summarizer });
  });
  afterAll(async () => t.close());

  async function play(id: string, rounds: number[], between: (round: number) => Promise<void> = async () => undefined) {
    const s = scenario(t, id);
    for (const round of rounds) {
      await s.say(...roundMessages(round));
      await between(round);
      await s.command('end-round');
    }
    await s.settled();
  }

  it('is rewritten at the ends of rounds 4, 8, 12 and 16 and at the act change, each from the previous summary and only new messages', async () => {
    const s = scenario(t, 'rolling');
    await s.create('Rolling');
    await s.location('road', 'The North Road');
    await s.move('road');
    summarizer.calls.length = 0;
    await play('rolling', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16], async (round) => {
      if (round === 11) await s.command('progress-act', { actId: 'act-2' });
    });
    const rolling = summarizer.rolling();
    // Three messages per round: round r holds indexes 3(r-1) .. 3r-1; hot = the round after the trigger and the 3
    // before it.
    const ranges = rolling.map((r) => [r.messages[0].index, r.messages[r.messages.length - 1].index]);
    expect(ranges).toEqual([
      [0, 2], // end of round 4 → round 1
      [3, 14], // end of round 8 → rounds 2–5
      [15, 20], // act change during round 11 → rounds 6–7
      [21, 26], // end of round 12 → rounds 8–9
      [27, 38], // end of round 16 → rounds 10–13
    ]);
    expect(rolling.map((r) => r.messages.length)).toEqual([3, 12, 6, 6, 12]);
    expect(rolling[0].previousSummary).toBeNull();
    for (let i = 1; i < rolling.length; i++)
      expect(rolling[i].previousSummary).toBe(
        `${rolling[i - 1].previousSummary ? `${rolling[i - 1].previousSummary} ` : ''}Then messages ${ranges[i - 1][0]}-${ranges[i - 1][1]}.`,
      );
    expect(rolling.every((r) => r.maxWords === 150 && r.viewer === null)).toBe(true);

    const events = (
      await s.context('').then(() => t.http('GET', '/v1/campaigns/rolling/events?stream=memory&limit=1000'))
    ).body.items;
    const updates = events.filter((e: any) => e.type === 'RollingSummaryUpdated');
    expect(updates.map((e: any) => e.data.throughMessageIndex)).toEqual([2, 14, 20, 26, 38]);

    const dm = await s.context('?agent=dm&format=text');
    expect(dm.text).toContain(
      '## Previously\nThen messages 0-2. Then messages 3-14. Then messages 15-20. Then messages 21-26. Then messages 27-38.',
    );
  });

  it('a failed rewrite records MemorySkipped, keeps the previous summary and cursor, and the next interval retries', async () => {
    const s = scenario(t, 'rolling-fail');
    await s.create('Rolling failure');
    summarizer.calls.length = 0;
    await play('rolling-fail', [1, 2, 3, 4, 5, 6, 7]);
    summarizer.failing.add('rolling');
    await play('rolling-fail', [8]);
    summarizer.failing.delete('rolling');

    const skipped = (
      await t.http('GET', '/v1/campaigns/rolling-fail/events?stream=memory&limit=1000')
    ).body.items.filter((e: any) => e.type === 'MemorySkipped');
    expect(skipped).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({
          scope: 'summary',
          subjectId: '*',
          attempts: 2,
          sinceMessageIndex: 3,
          throughMessageIndex: 14,
        }),
      }),
    ]);
    const dm = await s.context('?agent=dm&format=text');
    expect(dm.text).toContain('## Previously\nThen messages 0-2.\n');

    await play('rolling-fail', [9, 10, 11, 12]);
    const rolling = summarizer.rolling();
    const last = rolling[rolling.length - 1];
    expect(last.previousSummary).toBe('Then messages 0-2.');
    expect([last.messages[0].index, last.messages[last.messages.length - 1].index]).toEqual([3, 26]);
    expect((await s.context('?agent=dm&format=text')).text).toContain(
      '## Previously\nThen messages 0-2. Then messages 3-26.\n',
    );
  });

  it('a campaign that never reaches a summary interval has no Previously section', async () => {
    const s = scenario(t, 'rolling-short');
    await s.create('Short');
    await play('rolling-short', [1, 2, 3]);
    const dm = await s.context('?agent=dm');
    expect(dm.body.sections.find((x: any) => x.key === 'previously')).toEqual(expect.objectContaining({ entries: [] }));
  });
});
