import { mentionMatcher, mentions, npcWindow, planTriggers, SelectableMessage } from './message-selection';

const msg = (index: number, content: string, extra: Partial<SelectableMessage> = {}): SelectableMessage => ({ index, content, speaker: null, npcIds: [], ...extra });
const mira = { id: 'mira', name: 'Mira', aliases: ['the barkeep', 'Red'] };

describe('mentions (id, name or alias as a whole word, case-insensitive)', () => {
  it.each([
    ['Mira pours a drink.', true],
    ['I wave at mira.', true],
    ['MIRA!', true],
    ["Mira's tavern is warm.", true],
    ['"Mira," she said.', true],
    ['—Mira—', true],
    ['Ask the barkeep.', true],
    ['THE BARKEEP nods.', true],
    ['Red smiles.', true],
    ['Miranda pours a drink.', false],
    ['Admira the view.', false],
    ['Mira_2 logs in.', false],
    ['Mira2 logs in.', false],
    ['the barkeeper leaves', false],
    ['Reddish light.', false],
    ['Nobody is here.', false],
  ])('%j → %s', (content, expected) => {
    expect(mentions(mira, msg(0, content))).toBe(expected);
  });

  it('matches the speaker field as well as the content', () => {
    expect(mentions(mira, msg(0, 'Welcome, traveller.', { speaker: 'Mira' }))).toBe(true);
    expect(mentions(mira, msg(0, 'Welcome.', { speaker: 'Miranda' }))).toBe(false);
  });

  it('matches the NPC id in npcIds even when the text does not name it', () => {
    expect(mentions(mira, msg(0, 'She nods.', { npcIds: ['mira'] }))).toBe(true);
    expect(mentions(mira, msg(0, 'She nods.', { npcIds: ['miranda'] }))).toBe(false);
  });

  it('treats names with regex characters and non-ASCII letters literally, as whole words', () => {
    const odd = { id: 'o', name: 'Mr. T (the Elder)', aliases: ['Zoë', 'C++'] };
    const match = mentionMatcher(odd);
    expect(match('Greet Mr. T (the Elder) now')).toBe(true);
    expect(match('Mr. Tx (the Elder)')).toBe(false);
    expect(match('Zoë waves')).toBe(true);
    expect(match('ZOË waves')).toBe(true);
    expect(match('Zoëlla waves')).toBe(false);
    expect(match('I write C++ daily')).toBe(true);
    expect(match('Mr T the Elder')).toBe(false);
  });

  it('ignores blank aliases instead of matching everything', () => {
    const npc = { id: 'x', name: 'Ash', aliases: ['', '   '] };
    expect(mentions(npc, msg(0, 'A quiet night.'))).toBe(false);
    expect(mentions(npc, msg(0, 'Ash arrives.'))).toBe(true);
  });
});

describe('npcWindow (present-and-mentioned, ±1 within the selection)', () => {
  it('is empty when the NPC is not mentioned in the selection', () => {
    expect(npcWindow(mira, [msg(0, 'Bob talks.'), msg(1, 'Miranda answers.')])).toEqual([]);
    expect(npcWindow(mira, [])).toEqual([]);
  });

  it('keeps each mentioning message plus the one before and after it', () => {
    const selection = [0, 1, 2, 3, 4, 5, 6].map((i) => msg(i, `line ${i}`));
    selection[3] = msg(3, 'Mira frowns.');
    expect(npcWindow(mira, selection).map((m) => m.index)).toEqual([2, 3, 4]);
  });

  it('neighbours are taken within the selection, not by index (gaps from other locations)', () => {
    const selection = [msg(2, 'a'), msg(5, 'Mira speaks.'), msg(9, 'b'), msg(14, 'c')];
    expect(npcWindow(mira, selection).map((m) => m.index)).toEqual([2, 5, 9]);
  });

  it('clips the window at the ends of the selection', () => {
    const selection = [msg(10, 'Mira first.'), msg(11, 'x'), msg(12, 'y'), msg(13, 'the barkeep last')];
    expect(npcWindow(mira, selection).map((m) => m.index)).toEqual([10, 11, 12, 13]);
    expect(npcWindow(mira, [msg(1, 'x'), msg(2, 'y'), msg(3, 'z'), msg(4, 'Red here')]).map((m) => m.index)).toEqual([3, 4]);
  });

  it('merges overlapping windows without duplicates, in order', () => {
    const selection = [msg(0, 'a'), msg(1, 'Mira'), msg(2, 'Red'), msg(3, 'b'), msg(4, 'c'), msg(5, 'd')];
    expect(npcWindow(mira, selection).map((m) => m.index)).toEqual([0, 1, 2, 3]);
  });

  it('returns the selection objects themselves (whatever extra fields they carry)', () => {
    const selection = [{ ...msg(0, 'Mira'), at: 't0' }];
    expect(npcWindow(mira, selection)[0]).toBe(selection[0]);
  });
});

describe('planTriggers', () => {
  it('the first move from nowhere triggers nothing', () => {
    expect(planTriggers({ type: 'LocationChanged', data: { fromLocationId: null, toLocationId: 'tavern', npcsPresent: [] } })).toEqual([]);
  });

  it('leaving a location: one location task, then one NPC task per NPC present, all selecting that location', () => {
    const tasks = planTriggers({ type: 'LocationChanged', data: { fromLocationId: 'tavern', toLocationId: 'docks', npcsPresent: ['bob', 'mira'] } });
    expect(tasks).toEqual([
      { scope: 'location', subjectId: 'tavern', locationId: 'tavern', tags: ['location:tavern'], questId: null, encounterId: null },
      { scope: 'npc', subjectId: 'bob', locationId: 'tavern', tags: ['npc:bob', 'location:tavern'], questId: null, encounterId: null },
      { scope: 'npc', subjectId: 'mira', locationId: 'tavern', tags: ['npc:mira', 'location:tavern'], questId: null, encounterId: null },
    ]);
  });

  it('leaving a location with nobody present has only the location task', () => {
    expect(planTriggers({ type: 'LocationChanged', data: { fromLocationId: 'tavern', toLocationId: 'docks', npcsPresent: [] } }).map((t) => t.scope)).toEqual(['location']);
  });

  it('ObjectiveCompleted → world:objective_completed with quest and objective', () => {
    const [task, ...rest] = planTriggers({ type: 'ObjectiveCompleted', data: { questId: 'relic', objectiveId: 'map' } });
    expect(rest).toEqual([]);
    expect(task).toMatchObject({ scope: 'world', subjectId: 'world', worldKind: 'objective_completed', questId: 'relic', locationId: null, encounterId: null });
    expect(task.tags).toEqual(['world:objective_completed', 'quest:relic', 'objective:map']);
  });

  it('QuestCompleted → world:quest_completed with the quest', () => {
    const tasks = planTriggers({ type: 'QuestCompleted', data: { questId: 'relic' } });
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ scope: 'world', worldKind: 'quest_completed', questId: 'relic', tags: ['world:quest_completed', 'quest:relic'] });
  });

  it('ActProgressed → world:act_progressed with the new act', () => {
    const tasks = planTriggers({ type: 'ActProgressed', data: { fromActId: 'act-1', toActId: 'act-2' } });
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ scope: 'world', worldKind: 'act_progressed', tags: ['world:act_progressed', 'act:act-2'] });
  });

  it('LocationStateUpdated to CLEARED → world:location_cleared with the location', () => {
    const tasks = planTriggers({ type: 'LocationStateUpdated', data: { locationId: 'crypt', fromDangerLevel: 'HIGH', dangerLevel: 'CLEARED' } });
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ scope: 'world', worldKind: 'location_cleared', locationId: 'crypt', encounterId: null, tags: ['world:location_cleared', 'location:crypt'] });
  });

  it('LocationStateUpdated with an encounter → world:encounter_completed with location and encounter', () => {
    const tasks = planTriggers({ type: 'LocationStateUpdated', data: { locationId: 'crypt', fromDangerLevel: 'HIGH', completedEncounterId: 'lich' } });
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
    const tasks = planTriggers({ type: 'LocationStateUpdated', data: { locationId: 'crypt', fromDangerLevel: 'HIGH', dangerLevel: 'CLEARED', completedEncounterId: 'lich' } });
    expect(tasks.map((t) => t.worldKind)).toEqual(['location_cleared', 'encounter_completed']);
    expect(tasks.every((t) => t.scope === 'world' && t.subjectId === 'world')).toBe(true);
  });

  it('a danger level other than CLEARED triggers nothing', () => {
    expect(planTriggers({ type: 'LocationStateUpdated', data: { locationId: 'crypt', fromDangerLevel: 'LOW', dangerLevel: 'HIGH' } })).toEqual([]);
  });

  it.each(['CampaignCreated', 'LocationRegistered', 'LocationRenamed', 'NpcRegistered', 'NpcUpdated', 'QuestRegistered', 'MessageRecorded', 'RoundEnded', 'CampaignSettingsChanged'])(
    '%s triggers nothing',
    (type) => {
      expect(planTriggers({ type, data: {} })).toEqual([]);
    },
  );
});
