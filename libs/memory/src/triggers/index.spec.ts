import type { GameEvent } from '@app/campaign';
import { DEFAULT_TRIGGER_OPTIONS, planTasks } from '.';

/** The memory scopes (DESIGN §2) an event fires: what planTriggers returned before the triggers were split. */
const planTriggers = (event: { type: string; data: Record<string, unknown> }) =>
  planTasks(event as GameEvent, DEFAULT_TRIGGER_OPTIONS)
    .map((p) => p.task)
    .filter((t) => t.scope !== 'glossary' && t.scope !== 'summary' && t.scope !== 'revision');

describe('planTriggers', () => {
  it('the first move from nowhere triggers nothing', () => {
    expect(
      planTriggers({
        type: 'LocationChanged',
        data: { fromLocationId: null, toLocationId: 'tavern', npcsPresent: [] },
      }),
    ).toEqual([]);
  });

  it('leaving a location: one location task, then one NPC task per NPC present, all selecting that location', () => {
    const tasks = planTriggers({
      type: 'LocationChanged',
      data: { fromLocationId: 'tavern', toLocationId: 'docks', npcsPresent: ['bob', 'mira'] },
    });
    expect(tasks).toEqual([
      {
        scope: 'location',
        subjectId: 'tavern',
        locationId: 'tavern',
        tags: ['location:tavern'],
        questId: null,
        encounterId: null,
      },
      {
        scope: 'npc',
        subjectId: 'bob',
        locationId: 'tavern',
        tags: ['npc:bob', 'location:tavern'],
        questId: null,
        encounterId: null,
      },
      {
        scope: 'npc',
        subjectId: 'mira',
        locationId: 'tavern',
        tags: ['npc:mira', 'location:tavern'],
        questId: null,
        encounterId: null,
      },
    ]);
  });

  it('leaving a location with nobody present has only the location task', () => {
    expect(
      planTriggers({
        type: 'LocationChanged',
        data: { fromLocationId: 'tavern', toLocationId: 'docks', npcsPresent: [] },
      }).map((t) => t.scope),
    ).toEqual(['location']);
  });

  it('ObjectiveCompleted → world:objective_completed with quest and objective', () => {
    const [task, ...rest] = planTriggers({
      type: 'ObjectiveCompleted',
      data: { questId: 'relic', objectiveId: 'map' },
    });
    expect(rest).toEqual([]);
    expect(task).toMatchObject({
      scope: 'world',
      subjectId: 'world',
      worldKind: 'objective_completed',
      questId: 'relic',
      locationId: null,
      encounterId: null,
    });
    expect(task.tags).toEqual(['world:objective_completed', 'quest:relic', 'objective:map']);
  });

  it('QuestCompleted → world:quest_completed with the quest', () => {
    const tasks = planTriggers({ type: 'QuestCompleted', data: { questId: 'relic' } });
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({
      scope: 'world',
      worldKind: 'quest_completed',
      questId: 'relic',
      tags: ['world:quest_completed', 'quest:relic'],
    });
  });

  it('ActProgressed → world:act_progressed with the new act', () => {
    const tasks = planTriggers({ type: 'ActProgressed', data: { fromActId: 'act-1', toActId: 'act-2' } });
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({
      scope: 'world',
      worldKind: 'act_progressed',
      tags: ['world:act_progressed', 'act:act-2'],
    });
  });

  it('LocationStateUpdated to CLEARED → world:location_cleared with the location', () => {
    const tasks = planTriggers({
      type: 'LocationStateUpdated',
      data: { locationId: 'crypt', fromDangerLevel: 'HIGH', dangerLevel: 'CLEARED' },
    });
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({
      scope: 'world',
      worldKind: 'location_cleared',
      locationId: 'crypt',
      encounterId: null,
      tags: ['world:location_cleared', 'location:crypt'],
    });
  });

  it('LocationStateUpdated with an encounter → world:encounter_completed with location and encounter', () => {
    const tasks = planTriggers({
      type: 'LocationStateUpdated',
      data: { locationId: 'crypt', fromDangerLevel: 'HIGH', completedEncounterId: 'lich' },
    });
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({
      scope: 'world',
      worldKind: 'encounter_completed',
      locationId: 'crypt',
      encounterId: 'lich',
      tags: ['world:encounter_completed', 'location:crypt', 'encounter:lich'],
    });
  });

  it('CLEARED and an encounter in one event → two world tasks, cleared first', () => {
    const tasks = planTriggers({
      type: 'LocationStateUpdated',
      data: { locationId: 'crypt', fromDangerLevel: 'HIGH', dangerLevel: 'CLEARED', completedEncounterId: 'lich' },
    });
    expect(tasks.map((t) => t.worldKind)).toEqual(['location_cleared', 'encounter_completed']);
    expect(tasks.every((t) => t.scope === 'world' && t.subjectId === 'world')).toBe(true);
  });

  it('a danger level other than CLEARED triggers nothing', () => {
    expect(
      planTriggers({
        type: 'LocationStateUpdated',
        data: { locationId: 'crypt', fromDangerLevel: 'LOW', dangerLevel: 'HIGH' },
      }),
    ).toEqual([]);
  });

  it.each([
    'CampaignCreated',
    'LocationRegistered',
    'LocationRenamed',
    'NpcRegistered',
    'NpcUpdated',
    'QuestRegistered',
    'MessageRecorded',
    'RoundEnded',
    'CampaignSettingsChanged',
  ])('%s triggers nothing', (type) => {
    expect(planTriggers({ type, data: {} })).toEqual([]);
  });
});

const scopes = (type: string, data: Record<string, unknown>, interval = 4) =>
  planTasks({ type, data } as unknown as GameEvent, {
    ...DEFAULT_TRIGGER_OPTIONS,
    summaryIntervalRounds: interval,
  })
    .map(({ task: t }) => `${t.scope}:${t.subjectId}`)
    // §10: the revision task rides on every memory trigger (tested in revision.trigger.spec.ts).
    .filter((s) => s !== 'revision:*');

describe('planLayerTriggers (DESIGN §8), after the memory scopes', () => {
  it('§10: the revision task comes last on the memory triggers, so a failed revision is tried again', () => {
    const all = (type: string, data: Record<string, unknown>) =>
      planTasks({ type, data } as unknown as GameEvent, DEFAULT_TRIGGER_OPTIONS).map(({ task: t }) => t.scope);
    expect(all('LocationChanged', { fromLocationId: 'inn', toLocationId: 'road', npcsPresent: [] })).toEqual([
      'location',
      'summary',
      'revision',
    ]);
    expect(all('RoundEnded', { round: 1 })).toEqual(['revision']);
    expect(all('MessageRecorded', { role: 'dm', index: 7 })).toEqual(['glossary']);
  });

  it('a dm, narrator or npc message is a glossary trigger; player, system, assistant and tool messages are not', () => {
    for (const role of ['dm', 'narrator', 'npc'])
      expect(scopes('MessageRecorded', { role, index: 7 })).toEqual(['glossary:7']);
    for (const role of ['player', 'system', 'assistant', 'tool'])
      expect(scopes('MessageRecorded', { role, index: 7 })).toEqual([]);
  });

  it('"Previously" is rewritten at each RoundEnded of a multiple of the interval and at milestones, last', () => {
    expect([1, 2, 3, 4, 5, 8, 12].filter((round) => scopes('RoundEnded', { round }).length > 0)).toEqual([4, 8, 12]);
    expect(scopes('RoundEnded', { round: 3 }, 3)).toEqual(['summary:*']);
    expect(scopes('LocationChanged', { fromLocationId: 'inn', toLocationId: 'road', npcsPresent: ['mira'] })).toEqual([
      'location:inn',
      'npc:mira',
      'summary:*',
    ]);
    expect(scopes('LocationChanged', { fromLocationId: null, toLocationId: 'road', npcsPresent: [] })).toEqual([
      'summary:*',
    ]);
    expect(scopes('QuestCompleted', { questId: 'q' })).toEqual(['world:world', 'summary:*']);
    expect(scopes('ActProgressed', { fromActId: null, toActId: 'a2' })).toEqual(['world:world', 'summary:*']);
    expect(scopes('ObjectiveCompleted', { questId: 'q', objectiveId: 'o' })).toEqual(['world:world']);
  });
});
