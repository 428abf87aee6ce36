import type { CampaignReader, CampaignState, Horizon, StoredMessage } from '@app/campaign';
import { RecalledMessages } from './messages';
import { Candidate } from './rank';

const message = (index: number, at: string, content: string): StoredMessage =>
  ({ index, at, content, role: 'player', speaker: 'Nate', round: 1, visibility: 'public', audience: [] }) as never;

describe('RecalledMessages.dated', () => {
  const rows = [
    message(1, '2022-06-03T10:00:00.000Z', 'Turtles!'),
    message(2, '2023-06-10T10:00:00.000Z', 'A new tank.'),
    message(3, '2023-07-01T10:00:00.000Z', 'Off to the lake.'),
  ];
  const reads: { from: string; to: string }[] = [];
  const campaigns = {
    messagesBetween: async (_c: string, o: { from: string; to: string }) => {
      reads.push({ from: o.from, to: o.to });
      return rows.filter((m) => m.at >= o.from && m.at < o.to);
    },
    witnessed: async () => new Set<number>(),
    messagesByIndex: async () => [],
  } as unknown as CampaignReader;
  const state = { settings: {}, players: {}, npcs: {} } as unknown as CampaignState;
  const reader = () => new RecalledMessages(campaigns, 'c', {} as Horizon, null, true, state, new Set());
  const hit = (at: string): Candidate => ({ entry: { ref: '9', text: 'x', createdAt: at }, score: 1, kind: 0 });

  it('reads a month named without its year in each year the hits fall in (the campaign’s own years)', async () => {
    reads.length = 0;
    const found = [hit('2023-05-01T10:00:00.000Z'), hit('2022-01-01T10:00:00.000Z')];
    const dated = await reader().dated('What did Nate buy in June?', found);
    expect(dated.map((c) => c.entry.ref)).toEqual(['1', '2']);
    expect(reads.map((r) => r.from)).toEqual(['2022-05-31', '2023-05-31']);
    // A month's lines weigh half a named day's.
    expect(dated[0].score).toBeCloseTo(0.3, 6);
  });

  it('reads nothing without a hit to take a year from', async () => {
    reads.length = 0;
    expect(await reader().dated('What did Nate buy in June?', [])).toEqual([]);
    expect(reads).toEqual([]);
  });
});
