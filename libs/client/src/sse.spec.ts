import { SseParser } from './sse';

describe('SseParser', () => {
  it('yields complete events across chunk boundaries and drops comments', () => {
    const p = new SseParser();
    expect(p.push(': heartbeat\n\nid: 1:game:1\nevent: Campaign')).toEqual([]);
    expect(p.push('Created\ndata: {"version":1}\n\nid: 1:game:2\r\nevent: X\r\ndata: {"version":2}\r\n\r\n')).toEqual([
      { id: '1:game:1', event: 'CampaignCreated', data: { version: 1 } },
      { id: '1:game:2', event: 'X', data: { version: 2 } },
    ]);
  });

  it('hands over notices without an id, and non-JSON data as text', () => {
    const p = new SseParser();
    expect(p.push('event: cutoff\ndata: {"reason":"slow-listener"}\n\ndata: plain\ndata: text\n\n')).toEqual([
      { event: 'cutoff', data: { reason: 'slow-listener' } },
      { event: 'message', data: 'plain\ntext' },
    ]);
  });
});
