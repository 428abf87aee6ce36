import { DomainError, ErrorKind } from '@app/common';
import { CampaignCommand, MessageInput } from './commands';
import { decide } from './decide';
import { GameEvent } from './events';
import { fold } from './evolve';
import { CampaignState, emptyState } from './state';

const NOW = '2026-03-01T12:00:00.000Z';

/** State built the way production builds it: events folded by evolve. */
function stateOf(...events: GameEvent[]): CampaignState {
  return fold(
    emptyState('c1'),
    events.map((event, i) => ({ event, version: i + 1, recordedAt: '2026-03-01T10:00:00.000Z' })),
  );
}

const created: GameEvent = {
  type: 'CampaignCreated',
  data: { campaignId: 'c1', name: 'Saga', settings: { perRoleMemory: false } },
};
const tavern: GameEvent = {
  type: 'LocationRegistered',
  data: { locationId: 'tavern', name: 'Rusty Anchor', dangerLevel: 'SAFE' },
};
const docks: GameEvent = {
  type: 'LocationRegistered',
  data: { locationId: 'docks', name: 'Docks', dangerLevel: null },
};
const mira: GameEvent = {
  type: 'NpcRegistered',
  data: { npcId: 'mira', name: 'Mira', aliases: ['the barkeep'], locationId: 'tavern' },
};
const bob: GameEvent = {
  type: 'NpcRegistered',
  data: { npcId: 'bob', name: 'Bob', aliases: [], locationId: 'tavern' },
};
const cara: GameEvent = {
  type: 'NpcRegistered',
  data: { npcId: 'cara', name: 'Cara', aliases: [], locationId: 'docks' },
};
const drifter: GameEvent = {
  type: 'NpcRegistered',
  data: { npcId: 'drifter', name: 'Drifter', aliases: [], locationId: null },
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
const atTavern: GameEvent = {
  type: 'LocationChanged',
  data: { fromLocationId: null, toLocationId: 'tavern', npcsPresent: [] },
};

/** A campaign with two places, four NPCs, one quest, the party at the tavern. */
const world = () => stateOf(created, tavern, docks, mira, bob, cara, drifter, quest, atTavern);

function rejects(state: CampaignState, command: CampaignCommand, kind: ErrorKind, code: string): DomainError {
  let caught: unknown;
  try {
    decide(state, command);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(DomainError);
  expect(caught).toMatchObject({ kind, code });
  return caught as DomainError;
}

/** Deep-freezes so that any mutation of the state by decide throws. */
function frozen<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.values(value).forEach(frozen);
    Object.freeze(value);
  }
  return value;
}

const say = (content: string, extra: Partial<MessageInput> = {}): MessageInput => ({
  role: 'player',
  content,
  ...extra,
});
const record = (messages: MessageInput[], knownToolCallIds?: ReadonlySet<string>): CampaignCommand => ({
  type: 'RecordMessages',
  messages,
  now: NOW,
  knownToolCallIds,
});

describe('decide', () => {
  describe('CreateCampaign', () => {
    it('creates a campaign with default settings', () => {
      expect(decide(emptyState('c1'), { type: 'CreateCampaign', name: 'Saga' })).toEqual([
        { type: 'CampaignCreated', data: { campaignId: 'c1', name: 'Saga', settings: { perRoleMemory: false } } },
      ]);
    });

    it('keeps perRoleMemory when given', () => {
      const [event] = decide(emptyState('c1'), { type: 'CreateCampaign', name: 'Saga', perRoleMemory: true });
      expect(event.data).toMatchObject({ settings: { perRoleMemory: true } });
    });

    it('rejects an id that is taken with 409 CAMPAIGN_EXISTS', () => {
      rejects(stateOf(created), { type: 'CreateCampaign', name: 'Again' }, 'conflict', 'CAMPAIGN_EXISTS');
    });
  });

  describe('on a campaign that does not exist', () => {
    const commands: CampaignCommand[] = [
      { type: 'ChangeSettings', perRoleMemory: true },
      { type: 'PutLocation', locationId: 'l', name: 'L' },
      { type: 'PutNpc', npcId: 'n', name: 'N' },
      { type: 'PutQuest', questId: 'q', name: 'Q', objectives: [] },
      record([say('hello')]),
      { type: 'ChangeLocation', toLocationId: 'l' },
      { type: 'CompleteObjective', questId: 'q', objectiveId: 'o' },
      { type: 'CompleteQuest', questId: 'q' },
      { type: 'ProgressAct', actId: 'a' },
      { type: 'UpdateLocationState', locationId: 'l', dangerLevel: 'LOW' },
      { type: 'EndRound' },
    ];
    it.each(commands.map((c) => [c.type, c] as const))('%s is 404 CAMPAIGN_NOT_FOUND', (_type, command) => {
      rejects(emptyState('nope'), command, 'not_found', 'CAMPAIGN_NOT_FOUND');
    });
  });

  describe('ChangeSettings', () => {
    it('records a changed setting', () => {
      expect(decide(stateOf(created), { type: 'ChangeSettings', perRoleMemory: true })).toEqual([
        { type: 'CampaignSettingsChanged', data: { perRoleMemory: true } },
      ]);
    });

    it('records nothing when the setting is unchanged or absent', () => {
      expect(decide(stateOf(created), { type: 'ChangeSettings', perRoleMemory: false })).toEqual([]);
      expect(decide(stateOf(created), { type: 'ChangeSettings' })).toEqual([]);
    });
  });

  describe('PutLocation', () => {
    it('registers a new location, dangerLevel null when not given', () => {
      expect(decide(stateOf(created), { type: 'PutLocation', locationId: 'crypt', name: 'Crypt' })).toEqual([
        { type: 'LocationRegistered', data: { locationId: 'crypt', name: 'Crypt', dangerLevel: null } },
      ]);
    });

    it('renames a known location and keeps its danger level when none is given', () => {
      expect(decide(world(), { type: 'PutLocation', locationId: 'tavern', name: 'The Anchor' })).toEqual([
        { type: 'LocationRenamed', data: { locationId: 'tavern', name: 'The Anchor', dangerLevel: 'SAFE' } },
      ]);
    });

    it('records a new danger level through a rename event', () => {
      expect(
        decide(world(), { type: 'PutLocation', locationId: 'tavern', name: 'Rusty Anchor', dangerLevel: 'HIGH' }),
      ).toEqual([
        { type: 'LocationRenamed', data: { locationId: 'tavern', name: 'Rusty Anchor', dangerLevel: 'HIGH' } },
      ]);
    });

    it('records nothing when the same location is put again', () => {
      expect(decide(world(), { type: 'PutLocation', locationId: 'tavern', name: 'Rusty Anchor' })).toEqual([]);
      expect(
        decide(world(), { type: 'PutLocation', locationId: 'tavern', name: 'Rusty Anchor', dangerLevel: 'SAFE' }),
      ).toEqual([]);
    });
  });

  describe('PutNpc', () => {
    it('registers a new NPC nowhere by default', () => {
      expect(decide(world(), { type: 'PutNpc', npcId: 'eli', name: 'Eli' })).toEqual([
        { type: 'NpcRegistered', data: { npcId: 'eli', name: 'Eli', aliases: [], locationId: null } },
      ]);
    });

    it('registers a new NPC at a known location with aliases', () => {
      expect(
        decide(world(), { type: 'PutNpc', npcId: 'eli', name: 'Eli', aliases: ['the smith'], locationId: 'docks' }),
      ).toEqual([
        { type: 'NpcRegistered', data: { npcId: 'eli', name: 'Eli', aliases: ['the smith'], locationId: 'docks' } },
      ]);
    });

    it('rejects an unknown location with 404 LOCATION_NOT_FOUND', () => {
      rejects(
        world(),
        { type: 'PutNpc', npcId: 'eli', name: 'Eli', locationId: 'moon' },
        'not_found',
        'LOCATION_NOT_FOUND',
      );
      rejects(
        world(),
        { type: 'PutNpc', npcId: 'mira', name: 'Mira', locationId: 'moon' },
        'not_found',
        'LOCATION_NOT_FOUND',
      );
    });

    it('moves a known NPC, recording where it came from', () => {
      expect(decide(world(), { type: 'PutNpc', npcId: 'mira', name: 'Mira', locationId: 'docks' })).toEqual([
        {
          type: 'NpcUpdated',
          data: {
            npcId: 'mira',
            name: 'Mira',
            aliases: ['the barkeep'],
            locationId: 'docks',
            fromLocationId: 'tavern',
          },
        },
      ]);
    });

    it('null moves an NPC nowhere; an omitted locationId keeps it where it is', () => {
      expect(decide(world(), { type: 'PutNpc', npcId: 'mira', name: 'Mira', locationId: null })[0].data).toMatchObject({
        locationId: null,
        fromLocationId: 'tavern',
      });
      expect(decide(world(), { type: 'PutNpc', npcId: 'mira', name: 'Mira Vale' })[0].data).toMatchObject({
        name: 'Mira Vale',
        locationId: 'tavern',
      });
    });

    it('keeps aliases when omitted and replaces them when given', () => {
      expect(decide(world(), { type: 'PutNpc', npcId: 'mira', name: 'Mira', aliases: ['Red'] })[0].data).toMatchObject({
        aliases: ['Red'],
      });
      expect(decide(world(), { type: 'PutNpc', npcId: 'mira', name: 'Mira', aliases: [] })[0].data).toMatchObject({
        aliases: [],
      });
    });

    it('records nothing when nothing changed', () => {
      expect(decide(world(), { type: 'PutNpc', npcId: 'mira', name: 'Mira' })).toEqual([]);
      expect(
        decide(world(), {
          type: 'PutNpc',
          npcId: 'mira',
          name: 'Mira',
          aliases: ['the barkeep'],
          locationId: 'tavern',
        }),
      ).toEqual([]);
    });
  });

  describe('PutQuest', () => {
    it('registers a quest with its objectives', () => {
      expect(
        decide(world(), { type: 'PutQuest', questId: 'q2', name: 'Escort', objectives: [{ id: 'a', name: 'Meet' }] }),
      ).toEqual([
        { type: 'QuestRegistered', data: { questId: 'q2', name: 'Escort', objectives: [{ id: 'a', name: 'Meet' }] } },
      ]);
    });

    it('allows a quest without objectives', () => {
      expect(decide(world(), { type: 'PutQuest', questId: 'q2', name: 'Escort', objectives: [] })).toHaveLength(1);
    });

    it('rejects duplicate objective ids with 400 DUPLICATE_OBJECTIVE_ID', () => {
      rejects(
        world(),
        {
          type: 'PutQuest',
          questId: 'q2',
          name: 'Escort',
          objectives: [
            { id: 'a', name: 'A' },
            { id: 'a', name: 'B' },
          ],
        },
        'invalid',
        'DUPLICATE_OBJECTIVE_ID',
      );
    });

    it('records nothing when the same quest is put again, and a change when an objective changes', () => {
      const same = {
        type: 'PutQuest',
        questId: 'relic',
        name: 'Find the Relic',
        objectives: [
          { id: 'map', name: 'Buy the map' },
          { id: 'crypt', name: 'Enter the crypt' },
        ],
      } as const;
      expect(decide(world(), { ...same, objectives: [...same.objectives] })).toEqual([]);
      expect(
        decide(world(), { ...same, objectives: [{ id: 'map', name: 'Steal the map' }, same.objectives[1]] }),
      ).toHaveLength(1);
    });
  });

  describe('RecordMessages', () => {
    it('numbers messages campaign-wide from 0 and fills the defaults', () => {
      const events = decide(
        world(),
        record([say('Hello'), say('Hi', { role: 'npc', speaker: 'Mira', npcIds: ['mira', 'mira'] })]),
      );
      expect(events).toEqual([
        {
          type: 'MessageRecorded',
          data: {
            index: 0,
            role: 'player',
            speaker: null,
            content: 'Hello',
            locationId: 'tavern',
            npcIds: [],
            at: NOW,
            round: 1,
            visibility: 'public',
            audience: [],
            toolCalls: [],
            toolCallId: null,
            reasoning: null,
            atFilled: true, // §8: the server filled `at`, so no context prints it
          },
        },
        expect.objectContaining({
          type: 'MessageRecorded',
          data: expect.objectContaining({ index: 1, speaker: 'Mira', npcIds: ['mira'] }),
        }),
      ]);
    });

    it('continues the index after earlier messages', () => {
      const first = decide(world(), record([say('a'), say('b')]));
      const state = stateOf(created, tavern, docks, mira, bob, cara, drifter, quest, atTavern, ...first);
      expect(decide(state, record([say('c')]))[0].data).toMatchObject({ index: 2 });
    });

    it('keeps an explicit locationId, null and `at`', () => {
      const [a, b] = decide(
        world(),
        record([say('x', { locationId: 'docks', at: '1042-05-01T08:00:00Z' }), say('y', { locationId: null })]),
      );
      expect(a.data).toMatchObject({ locationId: 'docks', at: '1042-05-01T08:00:00Z' });
      expect(b.data).toMatchObject({ locationId: null });
    });

    it('places messages nowhere while the party has no location', () => {
      expect(decide(stateOf(created), record([say('x')]))[0].data).toMatchObject({ locationId: null });
    });

    it('rejects an unknown locationId with 404 LOCATION_NOT_FOUND naming the message', () => {
      const err = rejects(
        world(),
        record([say('ok'), say('bad', { locationId: 'moon' })]),
        'not_found',
        'LOCATION_NOT_FOUND',
      );
      expect(err.message).toContain('messages[1]');
    });

    it('rejects an unknown npcIds entry with 404 NPC_NOT_FOUND', () => {
      rejects(world(), record([say('ok'), say('bad', { npcIds: ['mira', 'ghost'] })]), 'not_found', 'NPC_NOT_FOUND');
    });

    it('rejects a tool result naming no earlier call with 404 TOOL_CALL_NOT_FOUND', () => {
      rejects(
        world(),
        record([{ role: 'tool', content: '{}', toolCallId: 'call-1' }]),
        'not_found',
        'TOOL_CALL_NOT_FOUND',
      );
    });

    it('accepts a tool result whose call came earlier in the same batch, or earlier in the campaign', () => {
      const batch = record([
        { role: 'assistant', content: '', toolCalls: [{ id: 'call-1', name: 'get_status' }] },
        { role: 'tool', content: '{"hp":3}', toolCallId: 'call-1' },
      ]);
      expect(decide(world(), batch)[1].data).toMatchObject({ toolCallId: 'call-1', role: 'tool' });
      expect(
        decide(world(), record([{ role: 'tool', content: '{}', toolCallId: 'old' }], new Set(['old']))),
      ).toHaveLength(1);
    });

    it('rejects a tool result that comes before its call in the batch', () => {
      rejects(
        world(),
        record([
          { role: 'tool', content: '{}', toolCallId: 'call-1' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'call-1', name: 'get_status' }] },
        ]),
        'not_found',
        'TOOL_CALL_NOT_FOUND',
      );
    });

    it('rejects a private message without audience with 400 AUDIENCE_REQUIRED', () => {
      rejects(world(), record([say('psst', { visibility: 'private' })]), 'invalid', 'AUDIENCE_REQUIRED');
      rejects(world(), record([say('psst', { visibility: 'private', audience: [] })]), 'invalid', 'AUDIENCE_REQUIRED');
    });

    it('rejects an unknown audience member with 404 AUDIENCE_NOT_FOUND', () => {
      rejects(
        world(),
        record([say('psst', { visibility: 'private', audience: ['mira', 'nobody'] })]),
        'not_found',
        'AUDIENCE_NOT_FOUND',
      );
    });

    it('records a private message to a known NPC', () => {
      expect(
        decide(world(), record([say('psst', { visibility: 'private', audience: ['mira'] })]))[0].data,
      ).toMatchObject({ visibility: 'private', audience: ['mira'] });
    });

    it('stamps the current round', () => {
      const state = stateOf(
        created,
        { type: 'RoundEnded', data: { round: 1 } },
        { type: 'RoundEnded', data: { round: 2 } },
      );
      expect(decide(state, record([say('x')]))[0].data).toMatchObject({ round: 3 });
    });
  });

  describe('ChangeLocation', () => {
    it('the first move from nowhere has no NPCs present', () => {
      const state = stateOf(created, tavern, mira);
      expect(decide(state, { type: 'ChangeLocation', toLocationId: 'tavern' })).toEqual([
        { type: 'LocationChanged', data: { fromLocationId: null, toLocationId: 'tavern', npcsPresent: [] } },
      ]);
    });

    it('captures the NPCs present at the location being left (sorted), not those elsewhere or nowhere', () => {
      expect(decide(world(), { type: 'ChangeLocation', toLocationId: 'docks' })).toEqual([
        {
          type: 'LocationChanged',
          data: { fromLocationId: 'tavern', toLocationId: 'docks', npcsPresent: ['bob', 'mira'] },
        },
      ]);
    });

    it('captures where NPCs are when the move is decided (after an NPC moved)', () => {
      const moved: GameEvent = {
        type: 'NpcUpdated',
        data: { npcId: 'bob', name: 'Bob', aliases: [], locationId: 'docks', fromLocationId: 'tavern' },
      };
      const state = stateOf(created, tavern, docks, mira, bob, cara, drifter, quest, atTavern, moved);
      expect(decide(state, { type: 'ChangeLocation', toLocationId: 'docks' })[0].data).toMatchObject({
        npcsPresent: ['mira'],
      });
    });

    it('rejects an unknown location with 404 LOCATION_NOT_FOUND', () => {
      rejects(world(), { type: 'ChangeLocation', toLocationId: 'moon' }, 'not_found', 'LOCATION_NOT_FOUND');
    });

    it('rejects moving to where the party is with 409 ALREADY_THERE', () => {
      rejects(world(), { type: 'ChangeLocation', toLocationId: 'tavern' }, 'conflict', 'ALREADY_THERE');
    });
  });

  describe('CompleteObjective', () => {
    it('completes an objective', () => {
      expect(decide(world(), { type: 'CompleteObjective', questId: 'relic', objectiveId: 'map' })).toEqual([
        { type: 'ObjectiveCompleted', data: { questId: 'relic', objectiveId: 'map' } },
      ]);
    });

    it('rejects an unknown quest with 404 QUEST_NOT_FOUND', () => {
      rejects(
        world(),
        { type: 'CompleteObjective', questId: 'nope', objectiveId: 'map' },
        'not_found',
        'QUEST_NOT_FOUND',
      );
    });

    it('rejects an unknown objective with 404 OBJECTIVE_NOT_FOUND', () => {
      rejects(
        world(),
        { type: 'CompleteObjective', questId: 'relic', objectiveId: 'nope' },
        'not_found',
        'OBJECTIVE_NOT_FOUND',
      );
    });

    it('rejects a completed objective with 409 OBJECTIVE_ALREADY_COMPLETED', () => {
      const state = stateOf(created, quest, {
        type: 'ObjectiveCompleted',
        data: { questId: 'relic', objectiveId: 'map' },
      });
      rejects(
        state,
        { type: 'CompleteObjective', questId: 'relic', objectiveId: 'map' },
        'conflict',
        'OBJECTIVE_ALREADY_COMPLETED',
      );
      expect(decide(state, { type: 'CompleteObjective', questId: 'relic', objectiveId: 'crypt' })).toHaveLength(1);
    });
  });

  describe('CompleteQuest', () => {
    it('completes a quest', () => {
      expect(decide(world(), { type: 'CompleteQuest', questId: 'relic' })).toEqual([
        { type: 'QuestCompleted', data: { questId: 'relic' } },
      ]);
    });

    it('rejects an unknown quest with 404 QUEST_NOT_FOUND', () => {
      rejects(world(), { type: 'CompleteQuest', questId: 'nope' }, 'not_found', 'QUEST_NOT_FOUND');
    });

    it('rejects a completed quest with 409 QUEST_ALREADY_COMPLETED', () => {
      rejects(
        stateOf(created, quest, { type: 'QuestCompleted', data: { questId: 'relic' } }),
        { type: 'CompleteQuest', questId: 'relic' },
        'conflict',
        'QUEST_ALREADY_COMPLETED',
      );
    });
  });

  describe('ProgressAct', () => {
    it('moves from no act to the first, and from act to act', () => {
      expect(decide(world(), { type: 'ProgressAct', actId: 'act-1' })).toEqual([
        { type: 'ActProgressed', data: { fromActId: null, toActId: 'act-1' } },
      ]);
      const inAct1 = stateOf(created, { type: 'ActProgressed', data: { fromActId: null, toActId: 'act-1' } });
      expect(decide(inAct1, { type: 'ProgressAct', actId: 'act-2' })).toEqual([
        { type: 'ActProgressed', data: { fromActId: 'act-1', toActId: 'act-2' } },
      ]);
    });

    it('rejects the current act with 409 ALREADY_IN_ACT', () => {
      const inAct1 = stateOf(created, { type: 'ActProgressed', data: { fromActId: null, toActId: 'act-1' } });
      rejects(inAct1, { type: 'ProgressAct', actId: 'act-1' }, 'conflict', 'ALREADY_IN_ACT');
    });
  });

  describe('UpdateLocationState', () => {
    it('changes the danger level, recording the previous one', () => {
      expect(decide(world(), { type: 'UpdateLocationState', locationId: 'tavern', dangerLevel: 'CLEARED' })).toEqual([
        {
          type: 'LocationStateUpdated',
          data: { locationId: 'tavern', fromDangerLevel: 'SAFE', dangerLevel: 'CLEARED' },
        },
      ]);
    });

    it('completes an encounter, with or without a danger level', () => {
      expect(
        decide(world(), { type: 'UpdateLocationState', locationId: 'docks', completeEncounter: 'ambush' }),
      ).toEqual([
        {
          type: 'LocationStateUpdated',
          data: { locationId: 'docks', fromDangerLevel: null, completedEncounterId: 'ambush' },
        },
      ]);
      expect(
        decide(world(), {
          type: 'UpdateLocationState',
          locationId: 'tavern',
          dangerLevel: 'CLEARED',
          completeEncounter: 'brawl',
        })[0].data,
      ).toEqual({
        locationId: 'tavern',
        fromDangerLevel: 'SAFE',
        dangerLevel: 'CLEARED',
        completedEncounterId: 'brawl',
      });
    });

    it('accepts an unchanged danger level together with a new encounter', () => {
      expect(
        decide(world(), {
          type: 'UpdateLocationState',
          locationId: 'tavern',
          dangerLevel: 'SAFE',
          completeEncounter: 'brawl',
        }),
      ).toHaveLength(1);
    });

    it('rejects an unknown location with 404 LOCATION_NOT_FOUND', () => {
      rejects(
        world(),
        { type: 'UpdateLocationState', locationId: 'moon', dangerLevel: 'LOW' },
        'not_found',
        'LOCATION_NOT_FOUND',
      );
    });

    it('rejects a command with nothing to change with 400 NOTHING_TO_UPDATE', () => {
      rejects(world(), { type: 'UpdateLocationState', locationId: 'tavern' }, 'invalid', 'NOTHING_TO_UPDATE');
    });

    it('rejects a completed encounter with 409 ENCOUNTER_ALREADY_COMPLETED', () => {
      const state = stateOf(created, tavern, {
        type: 'LocationStateUpdated',
        data: { locationId: 'tavern', fromDangerLevel: 'SAFE', completedEncounterId: 'brawl' },
      });
      rejects(
        state,
        { type: 'UpdateLocationState', locationId: 'tavern', completeEncounter: 'brawl' },
        'conflict',
        'ENCOUNTER_ALREADY_COMPLETED',
      );
      rejects(
        state,
        { type: 'UpdateLocationState', locationId: 'tavern', dangerLevel: 'LOW', completeEncounter: 'brawl' },
        'conflict',
        'ENCOUNTER_ALREADY_COMPLETED',
      );
    });

    it('rejects the current danger level alone with 409 DANGER_LEVEL_UNCHANGED', () => {
      rejects(
        world(),
        { type: 'UpdateLocationState', locationId: 'tavern', dangerLevel: 'SAFE' },
        'conflict',
        'DANGER_LEVEL_UNCHANGED',
      );
    });
  });

  describe('EndRound', () => {
    it('ends the current round', () => {
      expect(decide(world(), { type: 'EndRound' })).toEqual([{ type: 'RoundEnded', data: { round: 1 } }]);
    });
  });

  it('never mutates the state it decides on', () => {
    const state = frozen(world());
    const commands: CampaignCommand[] = [
      { type: 'PutLocation', locationId: 'tavern', name: 'X', dangerLevel: 'LOW' },
      { type: 'PutNpc', npcId: 'mira', name: 'M', aliases: ['z'], locationId: 'docks' },
      { type: 'PutQuest', questId: 'relic', name: 'R', objectives: [] },
      record([
        say('a', { npcIds: ['mira'] }),
        { role: 'assistant', content: '', toolCalls: [{ id: 't', name: 'x' }] },
        { role: 'tool', content: '{}', toolCallId: 't' },
      ]),
      { type: 'ChangeLocation', toLocationId: 'docks' },
      { type: 'CompleteObjective', questId: 'relic', objectiveId: 'map' },
      { type: 'CompleteQuest', questId: 'relic' },
      { type: 'ProgressAct', actId: 'a' },
      { type: 'UpdateLocationState', locationId: 'tavern', dangerLevel: 'CLEARED', completeEncounter: 'e' },
      { type: 'EndRound' },
    ];
    for (const command of commands) expect(() => decide(state, command)).not.toThrow();
  });
});
