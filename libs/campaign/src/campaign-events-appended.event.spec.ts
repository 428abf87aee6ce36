import { StoredEvent } from '@app/event-store';
import { AppendedListeners } from './campaign-events-appended.event';

describe('AppendedListeners', () => {
  it('calls every listener in turn, and one that throws neither stops the others nor reaches the writer', () => {
    const failures: unknown[] = [];
    const listeners = new AppendedListeners((err) => failures.push(err));
    const seen: string[] = [];
    listeners.add((e) => seen.push(`worker ${e.campaignId}@${e.version}`));
    listeners.add(() => {
      throw new Error('stream hub down');
    });
    listeners.add((e) => seen.push(`replicas ${e.campaignId}@${e.version}`));
    const events = [{ version: 6 }, { version: 7 }] as StoredEvent[];
    expect(() => listeners.publish('c1', events)).not.toThrow();
    expect(seen).toEqual(['worker c1@7', 'replicas c1@7']);
    expect(failures).toEqual([new Error('stream hub down')]);
  });
});
