import { AppendedListeners, CampaignEventsAppended } from './campaign-events-appended.event';

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
    expect(() => listeners.publish(new CampaignEventsAppended('c1', 7))).not.toThrow();
    expect(seen).toEqual(['worker c1@7', 'replicas c1@7']);
    expect(failures).toEqual([new Error('stream hub down')]);
  });
});
