import type { StoredEvent } from '@app/event-store';
import type { EntityManager } from 'typeorm';
import { emptyState } from '../domain/state';
import { InlineProjection, ProjectionContext, projection, runProjections } from './inline-projection';

const event = (type: string, version: number) => ({ type, version, data: {} }) as unknown as StoredEvent;

describe('inline projections', () => {
  const context: ProjectionContext = {
    m: {} as EntityManager,
    campaignId: 'c1',
    stateBefore: () => emptyState('c1'),
  };

  it('hands each projection only the events it can handle, in order, and skips it when there are none', async () => {
    const seen: string[] = [];
    const record = (name: string, canHandle: string[]): InlineProjection =>
      projection({
        name,
        canHandle,
        handle: async (events) => {
          seen.push(`${name}:${events.map((e) => `${e.type}@${e.version}`).join(',')}`);
        },
      });
    const events = [event('MessageRecorded', 1), event('RoundEnded', 2), event('MessageRecorded', 3)];
    await runProjections(
      [record('messages', ['MessageRecorded']), record('quests', ['QuestCompleted']), record('rounds', ['RoundEnded'])],
      events,
      context,
    );
    expect(seen).toEqual(['messages:MessageRecorded@1,MessageRecorded@3', 'rounds:RoundEnded@2']);
  });

  it('runs the list in order and stops at the first projection that throws (the append rolls back)', async () => {
    const ran: string[] = [];
    const list = ['a', 'b', 'c'].map((name) =>
      projection({
        name,
        canHandle: ['MessageRecorded'],
        handle: async () => {
          ran.push(name);
          if (name === 'b') throw new Error('b failed');
        },
      }),
    );
    await expect(runProjections(list, [event('MessageRecorded', 1)], context)).rejects.toThrow('b failed');
    expect(ran).toEqual(['a', 'b']);
  });
});
