import type { Message } from '@app/campaign';
import { compactSnapshots, DEFAULT_SNAPSHOT_TOOLS, recentLine } from './recent-window';

const msg = (index: number, o: Partial<Message> = {}): Message => ({
  index,
  role: 'player',
  speaker: null,
  content: `message ${index}`,
  locationId: null,
  npcIds: [],
  at: '2026-05-01T10:00:00.000Z',
  round: 1,
  visibility: 'public',
  audience: [],
  toolCalls: [],
  toolCallId: null,
  reasoning: null,
  ...o,
});
const result = (index: number, callId: string) =>
  msg(index, { role: 'tool', toolCallId: callId, content: `result of ${callId}` });
const snapshotTools = new Set(DEFAULT_SNAPSHOT_TOOLS);
const idx = (ms: Message[]) => ms.map((m) => m.index);

describe('compactSnapshots', () => {
  const names = new Map([
    ['s1', 'get_ship'],
    ['y1', 'get_system'],
    ['o1', 'scan'],
    ['s2', 'get_ship'],
    ['o2', 'scan'],
    ['y2', 'get_system'],
    ['s3', 'get_ship'],
  ]);

  it('keeps the newest result of each snapshot tool and every other message, in order', () => {
    const window = [
      msg(0),
      result(1, 's1'),
      result(2, 'y1'),
      result(3, 'o1'),
      result(4, 's2'),
      msg(5),
      result(6, 'o2'),
      result(7, 'y2'),
      result(8, 's3'),
    ];
    const { kept, compacted } = compactSnapshots(window, names, snapshotTools);
    expect(idx(kept)).toEqual([0, 3, 5, 6, 7, 8]);
    expect(idx(compacted)).toEqual([1, 2, 4]);
  });

  it('never compacts a result whose call resolves to another tool or does not resolve', () => {
    const window = [result(0, 'o1'), result(1, 'o2'), result(2, 'unknown'), result(3, 'unknown')];
    expect(idx(compactSnapshots(window, names, snapshotTools).kept)).toEqual([0, 1, 2, 3]);
  });

  it('uses the injected snapshot tool set (§5 can add tools)', () => {
    const window = [result(0, 'o1'), result(1, 'o2'), result(2, 's1'), result(3, 's2')];
    expect(idx(compactSnapshots(window, names, new Set(['scan'])).kept)).toEqual([1, 2, 3]);
  });

  it('only looks at tool messages (an assistant message is never removed)', () => {
    const window = [
      msg(0, { role: 'assistant', toolCalls: [{ id: 's1', name: 'get_ship' }], toolCallId: null }),
      result(1, 's1'),
      result(2, 's2'),
    ];
    expect(idx(compactSnapshots(window, names, snapshotTools).kept)).toEqual([0, 2]);
  });
});

describe('recentLine', () => {
  const names = new Map([['c1', 'get_ship']]);
  it('is `[index] speaker-or-role: content on one line`', () => {
    expect(recentLine(msg(3, { speaker: 'Aria', content: 'Hello\n\n  there ' }), names)).toBe('[3] Aria: Hello there');
    expect(recentLine(msg(4, { role: 'dm' }), names)).toBe('[4] dm: message 4');
  });
  it("names the tool of a result and lists an assistant's calls", () => {
    expect(recentLine(result(5, 'c1'), names)).toBe('[5] tool get_ship: result of c1');
    expect(recentLine(result(6, 'zz'), names)).toBe('[6] tool: result of zz');
    expect(
      recentLine(
        msg(7, {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'c1', name: 'get_ship' },
            { id: 'c2', name: 'get_map' },
          ],
        }),
        names,
      ),
    ).toBe('[7] assistant: [calls get_ship#c1, get_map#c2]');
  });
});
