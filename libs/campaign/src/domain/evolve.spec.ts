import { decide } from './decide';
import { GameEvent } from './events';
import { evolve, fold } from './evolve';
import { CampaignState, emptyState } from './state';

const AT = '2026-03-01T10:00:00.000Z';

function stateOf(...events: GameEvent[]): CampaignState {
  return fold(
    emptyState('c1'),
    events.map((event, i) => ({ event, version: i + 1, recordedAt: AT })),
  );
}

/** Deep-freezes so that any mutation by evolve throws. */
function frozen<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.values(value).forEach(frozen);
    Object.freeze(value);
  }
  return value;
}

const created: GameEvent = {
  type: 'CampaignCreated',
  data: { campaignId: 'c1', name: 'Saga', settings: { perRoleMemory: false } },
};
const tavern: GameEvent = {
  type: 'LocationRegistered',
  data: { locationId: 'tavern', name: 'Rusty Anchor', dangerLevel: 'SAFE' },
};
const quest: GameEvent = {
  type: 'QuestRegistered',
  data: {
    questId: 'relic',
    name: 'Find the Relic',
    objectives: [
      { id: 'map', name: 'Buy the map' },
      { id: 'crypt', name: 'Enter the crypt' },
    ],
  },
};

describe('evolve', () => {
  it('CampaignCreated sets name, settings and createdAt from the event time', () => {
    const s = evolve(
      emptyState('c1'),
      { type: 'CampaignCreated', data: { campaignId: 'c1', name: 'Saga', settings: { perRoleMemory: true } } },
      AT,
    );
    expect(s).toMatchObject({
      id: 'c1',
      name: 'Saga',
      settings: { perRoleMemory: true },
      createdAt: AT,
      currentLocationId: null,
      currentActId: null,
      round: 1,
      messageCount: 0,
    });
  });

  it('CampaignSettingsChanged merges settings', () => {
    expect(
      evolve(stateOf(created), { type: 'CampaignSettingsChanged', data: { perRoleMemory: true } }).settings,
    ).toEqual({ perRoleMemory: true });
  });

  it('LocationRegistered adds a location with no completed encounters', () => {
    expect(stateOf(created, tavern).locations.tavern).toEqual({
      id: 'tavern',
      name: 'Rusty Anchor',
      dangerLevel: 'SAFE',
      completedEncounters: [],
    });
  });

  it('LocationRenamed changes name and danger level but keeps completed encounters', () => {
    const s = stateOf(
      created,
      tavern,
      {
        type: 'LocationStateUpdated',
        data: { locationId: 'tavern', fromDangerLevel: 'SAFE', completedEncounterId: 'brawl' },
      },
      { type: 'LocationRenamed', data: { locationId: 'tavern', name: 'The Anchor', dangerLevel: 'LOW' } },
    );
    expect(s.locations.tavern).toEqual({
      id: 'tavern',
      name: 'The Anchor',
      dangerLevel: 'LOW',
      completedEncounters: ['brawl'],
    });
  });

  it('NpcRegistered and NpcUpdated set the NPC, including moves', () => {
    const s1 = stateOf(created, tavern, {
      type: 'NpcRegistered',
      data: { npcId: 'mira', name: 'Mira', aliases: ['Red'], locationId: 'tavern' },
    });
    expect(s1.npcs.mira).toEqual({ id: 'mira', name: 'Mira', aliases: ['Red'], locationId: 'tavern' });
    const s2 = evolve(s1, {
      type: 'NpcUpdated',
      data: { npcId: 'mira', name: 'Mira Vale', aliases: [], locationId: null, fromLocationId: 'tavern' },
    });
    expect(s2.npcs.mira).toEqual({ id: 'mira', name: 'Mira Vale', aliases: [], locationId: null });
  });

  it('QuestRegistered adds a quest with open objectives', () => {
    expect(stateOf(created, quest).quests.relic).toEqual({
      id: 'relic',
      name: 'Find the Relic',
      completed: false,
      objectives: [
        { id: 'map', name: 'Buy the map', completed: false },
        { id: 'crypt', name: 'Enter the crypt', completed: false },
      ],
    });
  });

  it('re-registering a quest keeps completion of objectives that stay and of the quest', () => {
    const s = stateOf(
      created,
      quest,
      { type: 'ObjectiveCompleted', data: { questId: 'relic', objectiveId: 'map' } },
      { type: 'QuestCompleted', data: { questId: 'relic' } },
      {
        type: 'QuestRegistered',
        data: {
          questId: 'relic',
          name: 'The Relic',
          objectives: [
            { id: 'map', name: 'Get the map' },
            { id: 'boat', name: 'Find a boat' },
          ],
        },
      },
    );
    expect(s.quests.relic).toEqual({
      id: 'relic',
      name: 'The Relic',
      completed: true,
      objectives: [
        { id: 'map', name: 'Get the map', completed: true },
        { id: 'boat', name: 'Find a boat', completed: false },
      ],
    });
  });

  it('MessageRecorded advances the message count past the index', () => {
    const msg = (index: number): GameEvent => ({
      type: 'MessageRecorded',
      data: {
        index,
        role: 'player',
        speaker: null,
        content: 'x',
        locationId: null,
        npcIds: [],
        at: AT,
        round: 1,
        visibility: 'public',
        audience: [],
        toolCalls: [],
        toolCallId: null,
        reasoning: null,
      },
    });
    expect(stateOf(created, msg(0), msg(1), msg(2)).messageCount).toBe(3);
  });

  it('LocationChanged moves the party', () => {
    expect(
      stateOf(created, tavern, {
        type: 'LocationChanged',
        data: { fromLocationId: null, toLocationId: 'tavern', npcsPresent: [] },
      }).currentLocationId,
    ).toBe('tavern');
  });

  it('ObjectiveCompleted and QuestCompleted mark only their target', () => {
    const s = stateOf(created, quest, { type: 'ObjectiveCompleted', data: { questId: 'relic', objectiveId: 'crypt' } });
    expect(s.quests.relic.objectives.map((o) => o.completed)).toEqual([false, true]);
    expect(s.quests.relic.completed).toBe(false);
    expect(evolve(s, { type: 'QuestCompleted', data: { questId: 'relic' } }).quests.relic.completed).toBe(true);
  });

  it('ActProgressed sets the current act', () => {
    expect(stateOf(created, { type: 'ActProgressed', data: { fromActId: null, toActId: 'act-2' } }).currentActId).toBe(
      'act-2',
    );
  });

  it('LocationStateUpdated sets the danger level, keeps it when absent, and appends encounters', () => {
    const s1 = stateOf(created, tavern, {
      type: 'LocationStateUpdated',
      data: { locationId: 'tavern', fromDangerLevel: 'SAFE', dangerLevel: 'CLEARED', completedEncounterId: 'a' },
    });
    expect(s1.locations.tavern).toMatchObject({ dangerLevel: 'CLEARED', completedEncounters: ['a'] });
    const s2 = evolve(s1, {
      type: 'LocationStateUpdated',
      data: { locationId: 'tavern', fromDangerLevel: 'CLEARED', completedEncounterId: 'b' },
    });
    expect(s2.locations.tavern).toMatchObject({ dangerLevel: 'CLEARED', completedEncounters: ['a', 'b'] });
  });

  it('RoundEnded makes the next round current', () => {
    expect(stateOf(created, { type: 'RoundEnded', data: { round: 1 } }).round).toBe(2);
  });

  it('fold tracks the stream version of the last event', () => {
    expect(stateOf(created, tavern, quest).version).toBe(3);
    expect(stateOf().version).toBe(0);
  });

  it('never mutates the state it is given', () => {
    const base = frozen(
      stateOf(created, tavern, quest, {
        type: 'NpcRegistered',
        data: { npcId: 'mira', name: 'Mira', aliases: [], locationId: 'tavern' },
      }),
    );
    const events: GameEvent[] = [
      { type: 'LocationRenamed', data: { locationId: 'tavern', name: 'X', dangerLevel: 'LOW' } },
      {
        type: 'NpcUpdated',
        data: { npcId: 'mira', name: 'M', aliases: ['a'], locationId: null, fromLocationId: 'tavern' },
      },
      { type: 'ObjectiveCompleted', data: { questId: 'relic', objectiveId: 'map' } },
      { type: 'QuestCompleted', data: { questId: 'relic' } },
      {
        type: 'LocationStateUpdated',
        data: { locationId: 'tavern', fromDangerLevel: 'SAFE', dangerLevel: 'CLEARED', completedEncounterId: 'e' },
      },
      { type: 'LocationChanged', data: { fromLocationId: null, toLocationId: 'tavern', npcsPresent: [] } },
      { type: 'RoundEnded', data: { round: 1 } },
    ];
    for (const e of events) expect(() => evolve(base, e)).not.toThrow();
    expect(base.quests.relic.objectives[0].completed).toBe(false);
  });

  it('decide then evolve: a completed thing cannot be completed again', () => {
    let s = stateOf(created, tavern, quest);
    const apply = (events: GameEvent[]) => {
      s = fold(
        s,
        events.map((event, i) => ({ event, version: s.version + i + 1, recordedAt: AT })),
      );
    };
    apply(decide(s, { type: 'CompleteObjective', questId: 'relic', objectiveId: 'map' }));
    apply(decide(s, { type: 'CompleteQuest', questId: 'relic' }));
    apply(decide(s, { type: 'UpdateLocationState', locationId: 'tavern', completeEncounter: 'brawl' }));
    apply(decide(s, { type: 'ChangeLocation', toLocationId: 'tavern' }));
    apply(decide(s, { type: 'ProgressAct', actId: 'act-1' }));
    expect(s.version).toBe(8);
    expect(() => decide(s, { type: 'CompleteObjective', questId: 'relic', objectiveId: 'map' })).toThrow(
      expect.objectContaining({ code: 'OBJECTIVE_ALREADY_COMPLETED' }),
    );
    expect(() => decide(s, { type: 'CompleteQuest', questId: 'relic' })).toThrow(
      expect.objectContaining({ code: 'QUEST_ALREADY_COMPLETED' }),
    );
    expect(() => decide(s, { type: 'UpdateLocationState', locationId: 'tavern', completeEncounter: 'brawl' })).toThrow(
      expect.objectContaining({ code: 'ENCOUNTER_ALREADY_COMPLETED' }),
    );
    expect(() => decide(s, { type: 'ChangeLocation', toLocationId: 'tavern' })).toThrow(
      expect.objectContaining({ code: 'ALREADY_THERE' }),
    );
    expect(() => decide(s, { type: 'ProgressAct', actId: 'act-1' })).toThrow(
      expect.objectContaining({ code: 'ALREADY_IN_ACT' }),
    );
  });
});

describe('§10 timeline events', () => {
  it('CampaignForked names the fork and records its parent; the other timeline events fold to nothing', () => {
    const forked: GameEvent = { type: 'CampaignForked', data: { parentId: 'c0', parentVersion: 2, name: 'What if' } };
    const s = stateOf(created, tavern, forked);
    expect([s.name, s.parent, s.version]).toEqual(['What if', { id: 'c0', version: 2 }, 3]);
    const quiet: GameEvent[] = [
      { type: 'CampaignRewound', data: { fromVersion: 9, toVersion: 3, keptAs: null } },
      { type: 'MessagesRetracted', data: { indexes: [0], reason: null } },
      { type: 'MemoryCorrected', data: { memoryId: 'm', summary: 'x' } },
      { type: 'MemoryDeleted', data: { memoryId: 'm' } },
    ];
    for (const e of quiet) expect(evolve(frozen(s), e)).toBe(s);
  });

  it('decides retraction and memory edits all or nothing, with the §10 codes', () => {
    const s = { ...stateOf(created), messageCount: 2 };
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as { code: string }).code;
      }
      return 'none';
    };
    expect(code(() => decide(s, { type: 'RetractMessages', indexes: [1, 2] }))).toBe('MESSAGE_NOT_FOUND');
    expect(code(() => decide(s, { type: 'RetractMessages', indexes: [0, 1], retracted: new Set([1]) }))).toBe(
      'MESSAGE_RETRACTED',
    );
    expect(decide(s, { type: 'RetractMessages', indexes: [1], reason: 'swipe' })).toEqual([
      { type: 'MessagesRetracted', data: { indexes: [1], reason: 'swipe' } },
    ]);
    expect(code(() => decide(s, { type: 'CorrectMemory', memoryId: 'm', summary: 'x' }))).toBe('MEMORY_NOT_FOUND');
    expect(code(() => decide(s, { type: 'DeleteMemory', memoryId: 'm', exists: false }))).toBe('MEMORY_NOT_FOUND');
    expect(decide(s, { type: 'DeleteMemory', memoryId: 'm', exists: true })).toEqual([
      { type: 'MemoryDeleted', data: { memoryId: 'm' } },
    ]);
  });
});
