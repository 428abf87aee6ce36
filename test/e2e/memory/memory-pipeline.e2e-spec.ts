import { MockAnthropic, startMockAnthropic } from '../../support/mock-anthropic';
import { scopeRequests } from '../../support/mock-requests';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

type Scenario = ReturnType<typeof scenario>;

/** Tavern (Mira, alias "the barkeep", and Bob), docks (Cara), crypt; a quest; the party at the tavern. */
async function setUp(s: Scenario): Promise<void> {
  await s.create('Saga');
  await s.location('tavern', 'Rusty Anchor', 'SAFE');
  await s.location('docks', 'Docks');
  await s.location('crypt', 'Crypt', 'HIGH');
  await s.npc('mira', 'Mira', 'tavern', ['the barkeep']);
  await s.npc('bob', 'Bob', 'tavern');
  await s.npc('cara', 'Cara', 'docks');
  await s.quest('relic', 'Find the Relic', [
    { id: 'map', name: 'Buy the map' },
    { id: 'crypt', name: 'Enter the crypt' },
  ]);
  await s.move('tavern');
}

const line = (content: string, extra: Record<string, unknown> = {}) => ({
  role: 'player',
  speaker: 'Aria',
  content,
  ...extra,
});

// jest ignores the e2e project's testTimeout (a global option): booting apps inside a test needs more than 5 s cold.
jest.setTimeout(60_000);

describe('memory pipeline over HTTP, AnthropicSummarizer against the local mock', () => {
  let mock: MockAnthropic;
  let t: TestApp;

  beforeAll(async () => {
    mock = await startMockAnthropic();
    t = await startTestApp({
      env: { SUMMARIZER: 'anthropic', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: mock.baseUrl },
    });
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
  });
  beforeEach(() => mock.reset());

  it('the first move from nowhere calls no model', async () => {
    const s = scenario(t, 'pipe-first');
    await setUp(s);
    await s.settled();
    expect(mock.requests).toHaveLength(0);
    expect((await s.campaign()).cursors).toEqual({ world: -1, locations: {}, npcs: {} });
  });

  it('leaving a location creates a location memory from its messages and moves its cursor', async () => {
    const s = scenario(t, 'pipe-loc');
    await setUp(s);
    await s.say(
      line('I pay the barkeep 5 gold for the map.'),
      { role: 'dm', content: 'Far away, gulls cry.', locationId: 'docks' },
      { role: 'dm', content: 'The fire crackles.' },
    );
    const { version } = await s.move('docks');
    await s.settled();

    const requests = scopeRequests(mock);
    expect(requests.filter((r) => r.scope === 'location')).toEqual([
      { scope: 'location', subject: 'Rusty Anchor', indexes: [0, 2] },
    ]);
    expect(mock.requests[0].headers.authorization ?? mock.requests[0].headers['x-api-key']).toMatch(/test-key/);
    expect(mock.requests[0].body.model).toBe('claude-haiku-4-5');

    const { items } = await s.memories('?scope=location');
    // §8: a memory is dated with the story's time — the `at` of the last message it summarizes (index 2).
    const last = (await t.http('GET', `/v1/campaigns/pipe-loc/messages`)).body.items.find((m: any) => m.index === 2);
    expect(items).toEqual([
      {
        id: expect.any(String),
        scope: 'location',
        subjectId: 'tavern',
        summary: 'Summary of 2 messages: The fire crackles. The story moves on.',
        tags: ['location:tavern'],
        locationId: 'tavern',
        npcIds: [],
        questId: null,
        encounterId: null,
        sinceMessageIndex: 0,
        throughMessageIndex: 2,
        sinceTimestamp: expect.any(String),
        createdAt: last.at,
        triggerVersion: version,
        // §10: listings carry the wording's revision and who wrote it.
        revision: 1,
        origin: 'model',
      },
    ]);
    const campaign = await s.campaign();
    expect(campaign.cursors.locations).toEqual({ tavern: 2 });
    expect(campaign.processedVersion).toBe(campaign.version);

    // Back at the tavern, the narrative context shows it.
    await s.move('tavern');
    await s.settled();
    const text = (await s.context('?format=text')).text;
    expect(text).toMatch(
      /^## Recent Location Memory\n- round 1 — Summary of 2 messages: The fire crackles\. The story moves on\.\n/,
    );
  });

  it('NPC memories only for NPCs present at the left location AND mentioned there (window ±1)', async () => {
    const s = scenario(t, 'pipe-npc');
    await setUp(s);
    await s.say(
      line('We sit down.'),
      line('Quiet music plays.'),
      line('I ask the barkeep for rumours.'),
      { role: 'dm', content: 'She shrugs.' },
      line('Cara is at the docks, they say.'),
      line('Later.'),
    );
    await s.move('docks');
    await s.settled();

    const requests = scopeRequests(mock);
    expect(requests.filter((r) => r.scope === 'npc')).toEqual([{ scope: 'npc', subject: 'Mira', indexes: [1, 2, 3] }]);
    expect(requests.filter((r) => r.scope === 'location')).toEqual([
      { scope: 'location', subject: 'Rusty Anchor', indexes: [0, 1, 2, 3, 4, 5] },
    ]);
    const npcs = (await s.memories('?scope=npc')).items;
    expect(npcs.map((m: any) => [m.subjectId, m.npcIds, m.tags, m.sinceMessageIndex, m.throughMessageIndex])).toEqual([
      ['mira', ['mira'], ['npc:mira', 'location:tavern'], 1, 3],
    ]);
    expect((await s.memories('?scope=npc&subjectId=bob')).items).toEqual([]);
    expect((await s.memories('?scope=npc&subjectId=cara')).items).toEqual([]);
    expect((await s.campaign()).cursors.npcs).toEqual({ mira: 3 });
  });

  describe('world events: each kind creates a world memory with its tags and moves the world cursor', () => {
    const s = () => scenario(t, 'pipe-world');
    beforeAll(async () => setUp(s()));

    const kinds: Array<[string, string, Record<string, unknown>, string[], Record<string, unknown>]> = [
      [
        'objective_completed',
        'complete-objective',
        { questId: 'relic', objectiveId: 'map' },
        ['world:objective_completed', 'quest:relic', 'objective:map'],
        { questId: 'relic' },
      ],
      [
        'quest_completed',
        'complete-quest',
        { questId: 'relic' },
        ['world:quest_completed', 'quest:relic'],
        { questId: 'relic' },
      ],
      ['act_progressed', 'progress-act', { actId: 'act-2' }, ['world:act_progressed', 'act:act-2'], {}],
      [
        'location_cleared',
        'update-location-state',
        { locationId: 'crypt', dangerLevel: 'CLEARED' },
        ['world:location_cleared', 'location:crypt'],
        { locationId: 'crypt' },
      ],
      [
        'encounter_completed',
        'update-location-state',
        { locationId: 'crypt', completeEncounter: 'lich' },
        ['world:encounter_completed', 'location:crypt', 'encounter:lich'],
        { locationId: 'crypt', encounterId: 'lich' },
      ],
    ];

    it.each(kinds)('%s', async (kind, command, body, tags, ids) => {
      const { indexes } = await s().say(line(`Something leads to ${kind}.`));
      const { version } = await s().command(command, body);
      await s().settled();
      expect(scopeRequests(mock)).toEqual([{ scope: 'world', subject: kind, indexes }]);
      const [newest] = (await s().memories('?scope=world&limit=1')).items;
      expect(newest).toMatchObject({
        scope: 'world',
        subjectId: 'world',
        tags,
        triggerVersion: version,
        sinceMessageIndex: indexes[0],
        throughMessageIndex: indexes[0],
        questId: null,
        encounterId: null,
        locationId: null,
        ...ids,
      });
      expect((await s().campaign()).cursors.world).toBe(indexes[0]);
    });

    it('CLEARED and an encounter in one command: the second trigger finds nothing new', async () => {
      await s().location('vault', 'Vault', 'EXTREME');
      const { indexes } = await s().say(line('The vault guardian falls.'));
      await s().command('update-location-state', {
        locationId: 'vault',
        dangerLevel: 'CLEARED',
        completeEncounter: 'guardian',
      });
      await s().settled();
      expect(scopeRequests(mock)).toEqual([{ scope: 'world', subject: 'location_cleared', indexes }]);
      const [newest] = (await s().memories('?scope=world&limit=1')).items;
      expect(newest.tags).toEqual(['world:location_cleared', 'location:vault']);
    });
  });

  it('nothing is summarized twice: each message reaches each scope once across several triggers', async () => {
    const s = scenario(t, 'pipe-twice');
    await setUp(s);
    const tavern: number[] = [];
    const all: number[] = [];
    const sayAt = async (place: string, content: string) => {
      const { indexes } = await s.say(line(content));
      if (place === 'tavern') tavern.push(...indexes);
      all.push(...indexes);
    };
    await sayAt('tavern', 'Mira pours ale.');
    await sayAt('tavern', 'Bob sings.');
    await s.move('docks');
    await sayAt('docks', 'Cara waves.');
    await s.command('complete-objective', { questId: 'relic', objectiveId: 'map' });
    await s.move('tavern');
    await sayAt('tavern', 'Mira again.');
    await s.settled();
    await sayAt('tavern', 'the barkeep laughs');
    await s.command('progress-act', { actId: 'act-2' });
    await s.move('docks');
    await s.move('tavern');
    await s.move('docks');
    await s.command('complete-quest', { questId: 'relic' });
    await s.settled();

    const requests = scopeRequests(mock);
    const flat = (scope: string, subject?: string) =>
      requests.filter((r) => r.scope === scope && (!subject || r.subject === subject)).flatMap((r) => r.indexes);
    expect(flat('location', 'Rusty Anchor')).toEqual(tavern);
    expect(flat('location', 'Docks')).toEqual([2]);
    expect(flat('world')).toEqual(all);
    const mira = flat('npc', 'Mira');
    expect(new Set(mira).size).toBe(mira.length);
    const memories = (await s.memories('?limit=100')).items;
    expect(memories).toHaveLength(requests.length);
  });

  it('a failed summary (500 on both attempts) is recorded as MemorySkipped and offered again at the next trigger', async () => {
    const s = scenario(t, 'pipe-fail');
    await setUp(s);
    await s.say(line('We order stew.'), line('We pay 3 silver.'));
    mock.setHandler(() => ({ status: 500 }));
    const { version } = await s.move('docks');
    await s.settled();
    expect(mock.requests).toHaveLength(2);

    const skipped = (await t.http('GET', '/v1/campaigns/pipe-fail/events?stream=memory')).body.items;
    expect(skipped).toEqual([
      expect.objectContaining({
        version: 1,
        type: 'MemorySkipped',
        data: expect.objectContaining({
          scope: 'location',
          subjectId: 'tavern',
          attempts: 2,
          triggerVersion: version,
          reason: expect.stringMatching(/^error: 500/),
        }),
      }),
    ]);
    expect((await s.memories()).items).toEqual([]);
    expect((await s.campaign()).cursors.locations).toEqual({});

    mock.reset();
    await s.move('tavern');
    await s.say(line('We leave a tip.'));
    await s.move('docks');
    await s.settled();
    expect(scopeRequests(mock)).toEqual([{ scope: 'location', subject: 'Rusty Anchor', indexes: [0, 1, 2] }]);
    const [memory] = (await s.memories('?scope=location')).items;
    expect(memory).toMatchObject({ sinceMessageIndex: 0, throughMessageIndex: 2 });
    expect((await s.campaign()).cursors.locations).toEqual({ tavern: 2 });
  });

  it('an empty answer then a good one records the memory after exactly two calls', async () => {
    const s = scenario(t, 'pipe-empty');
    await setUp(s);
    await s.say(line('We rest.'));
    mock.setHandler((_body, n) => (n === 0 ? { text: '   ' } : { text: 'The party rested at the Rusty Anchor.' }));
    await s.move('docks');
    await s.settled();
    expect(mock.requests).toHaveLength(2);
    expect((await s.memories()).items.map((m: any) => m.summary)).toEqual(['The party rested at the Rusty Anchor.']);
  });
});
