import type { StoredEvent } from '@app/event-store';
import { RequestTerms } from './request-terms';

const event = (version: number, correlationId?: string): StoredEvent => ({
  position: version,
  streamId: 'game-c',
  version,
  type: 'MessageRecorded',
  data: {},
  metadata: correlationId ? { correlationId } : {},
  recordedAt: '2026-01-01T00:00:00.000Z',
});

describe('RequestTerms (§13 MAX_NEW_TERMS_PER_REQUEST)', () => {
  it('shares one count among the events of a request, per campaign; an event without a request id is its own', () => {
    const terms = new RequestTerms();
    terms.of('c', event(1, 'req-a')).coined += 3;
    expect(terms.of('c', event(2, 'req-a')).coined).toBe(3);
    expect(terms.of('d', event(2, 'req-a')).coined).toBe(0);
    expect(terms.of('c', event(3, 'req-b')).coined).toBe(0);
    terms.of('c', event(4)).coined++;
    expect(terms.of('c', event(5)).coined).toBe(0);
  });

  it('keeps the newest 1,024 requests', () => {
    const terms = new RequestTerms();
    terms.of('c', event(1, 'first')).coined = 5;
    for (let i = 0; i < 1_024; i++) terms.of('c', event(2 + i, `r${i}`));
    expect(terms.of('c', event(2_000, 'first')).coined).toBe(0);
  });
});
