import { planLayerTriggers, planTriggers } from './message-selection';

const scopes = (type: string, data: Record<string, unknown>, interval = 4) =>
  [...planTriggers({ type, data }), ...planLayerTriggers({ type, data }, { summaryIntervalRounds: interval })].map((t) => `${t.scope}:${t.subjectId}`);

describe('planLayerTriggers (DESIGN §8), after the memory scopes', () => {
  it('a dm, narrator or npc message is a glossary trigger; player, system, assistant and tool messages are not', () => {
    for (const role of ['dm', 'narrator', 'npc']) expect(scopes('MessageRecorded', { role, index: 7 })).toEqual(['glossary:7']);
    for (const role of ['player', 'system', 'assistant', 'tool']) expect(scopes('MessageRecorded', { role, index: 7 })).toEqual([]);
  });

  it('"Previously" is rewritten at each RoundEnded of a multiple of the interval and at milestones, after the memory scopes', () => {
    expect([1, 2, 3, 4, 5, 8, 12].filter((round) => scopes('RoundEnded', { round }).length > 0)).toEqual([4, 8, 12]);
    expect(scopes('RoundEnded', { round: 3 }, 3)).toEqual(['summary:*']);
    expect(scopes('LocationChanged', { fromLocationId: 'inn', toLocationId: 'road', npcsPresent: ['mira'] })).toEqual(['location:inn', 'npc:mira', 'summary:*']);
    expect(scopes('LocationChanged', { fromLocationId: null, toLocationId: 'road', npcsPresent: [] })).toEqual(['summary:*']);
    expect(scopes('QuestCompleted', { questId: 'q' })).toEqual(['world:world', 'summary:*']);
    expect(scopes('ActProgressed', { fromActId: null, toActId: 'a2' })).toEqual(['world:world', 'summary:*']);
    expect(scopes('ObjectiveCompleted', { questId: 'q', objectiveId: 'o' })).toEqual(['world:world']);
  });
});
