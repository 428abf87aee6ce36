import { DomainError } from '@app/common';
import { advance, FeedItem, mapCursor, mergePages, parseEventId, sseFrame } from './event-feed';

const item = (stream: 'game' | 'memory', version: number, position: number): FeedItem => ({
  id: `1:${stream}:${version}`,
  position,
  stream,
  version,
  type: stream === 'game' ? 'MessageRecorded' : 'MemoryRecorded',
  data: {},
  recordedAt: '2026-11-26T00:00:00.000Z',
});

describe('event ids', () => {
  it('parses <timeline>:<stream>:<version>', () => {
    expect(parseEventId('1:game:12')).toEqual({ timeline: 1, stream: 'game', version: 12 });
    expect(parseEventId(' 3:memory:0 ')).toEqual({ timeline: 3, stream: 'memory', version: 0 });
  });

  it.each(['', 'game:1', '0:game:1', '1:chat:1', '1:game:-1', '1:game:1.5', '1:game:99999999999', '1:game:1:2'])(
    'refuses %p with INVALID_EVENT_ID',
    (raw) => {
      expect(() => parseEventId(raw)).toThrow(DomainError);
      expect(() => parseEventId(raw)).toThrow(/timeline/);
    },
  );
});

describe('mergePages', () => {
  it('interleaves two pages by global position', () => {
    const merged = mergePages(
      [item('game', 1, 1), item('game', 2, 4)],
      [item('memory', 1, 2), item('memory', 2, 3)],
      10,
    );
    expect(merged.map((i) => i.id)).toEqual(['1:game:1', '1:memory:1', '1:memory:2', '1:game:2']);
  });

  it('stops at the last event of a full page, where the other stream could still have unread events before', () => {
    // The game page is full (limit 2): memory events after its last position wait for the next page.
    const merged = mergePages(
      [item('game', 1, 1), item('game', 2, 3)],
      [item('memory', 1, 2), item('memory', 2, 9)],
      2,
    );
    expect(merged.map((i) => i.id)).toEqual(['1:game:1', '1:memory:1', '1:game:2']);
    expect(advance({ timeline: 1, game: 0, memory: 0 }, merged)).toEqual({ timeline: 1, game: 2, memory: 1 });
  });
});

describe('sseFrame', () => {
  it('writes id, event and one line of data, with triggerVersion only when there is one', () => {
    const frame = sseFrame({ ...item('memory', 2, 5), data: { summary: 'two\nlines' }, triggerVersion: 7 });
    expect(frame).toBe(
      'id: 1:memory:2\nevent: MemoryRecorded\ndata: {"stream":"memory","version":2,"type":"MemoryRecorded","data":{"summary":"two\\nlines"},"triggerVersion":7,"recordedAt":"2026-11-26T00:00:00.000Z"}\n\n',
    );
    expect(sseFrame(item('game', 1, 1))).not.toContain('triggerVersion');
  });
});

describe('mapCursor (DESIGN §10 rewinds)', () => {
  const rewinds = [
    { timeline: 2, fromVersion: 30, toVersion: 20, memoryVersion: 5 },
    { timeline: 3, fromVersion: 40, toVersion: 12, memoryVersion: 3 },
  ];

  it('caps a cursor of an older timeline at what each rewind since kept, and lists them oldest first', () => {
    const out = mapCursor({ timeline: 1, game: 25, memory: 9 }, 3, rewinds);
    expect(out.cursor).toEqual({ timeline: 3, game: 12, memory: 3 });
    expect(out.crossed.map((r) => r.timeline)).toEqual([2, 3]);
  });

  it('keeps a cursor below the cuts and crosses only the later rewinds', () => {
    const out = mapCursor({ timeline: 2, game: 10, memory: 2 }, 3, rewinds);
    expect(out.cursor).toEqual({ timeline: 3, game: 10, memory: 2 });
    expect(out.crossed.map((r) => r.timeline)).toEqual([3]);
  });

  it('leaves a cursor of the current timeline alone', () => {
    expect(mapCursor({ timeline: 3, game: 15, memory: 4 }, 3, rewinds)).toEqual({
      cursor: { timeline: 3, game: 15, memory: 4 },
      crossed: [],
    });
  });
});
