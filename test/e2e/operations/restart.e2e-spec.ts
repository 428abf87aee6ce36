import { testDatabaseUrl } from '../../support/test-postgres';
import { existsSync } from 'node:fs';
import { MockAnthropic, startMockAnthropic } from '../../support/mock-anthropic';
import { eventually, scopeOf, scopeRequests } from '../../support/mock-requests';
import { scenario } from '../../support/scenario';
import { startTestApp, tempDb, TestApp } from '../../support/test-app';

const line = (content: string) => ({ role: 'player', speaker: 'Aria', content });

// jest ignores the e2e project's testTimeout (a global option): booting apps inside a test needs more than 5 s cold.
jest.setTimeout(60_000);

// SQLite-file restarts; on PostgreSQL, restarts and takeovers are covered by test/pg/replicas.pg-spec.ts.
(testDatabaseUrl() ? describe.skip : describe)('restarting the service on the same SQLite file', () => {
  let mock: MockAnthropic;
  let db: ReturnType<typeof tempDb>;
  let t: TestApp | undefined;

  const start = async () => {
    t = await startTestApp({
      dbPath: db.path,
      env: { SUMMARIZER: 'anthropic', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: mock.baseUrl },
    });
    return t;
  };
  const stop = async () => {
    await t?.close();
    t = undefined;
  };

  beforeAll(async () => {
    mock = await startMockAnthropic();
  });
  afterAll(async () => mock.close());
  beforeEach(() => {
    mock.reset();
    db = tempDb();
  });
  afterEach(async () => {
    await stop();
    db.cleanup();
  });

  async function playSession(app: TestApp, id: string) {
    const s = scenario(app, id);
    await s.create('Saga');
    await s.location('tavern', 'Rusty Anchor');
    await s.location('docks', 'Docks');
    await s.npc('mira', 'Mira', 'tavern', ['the barkeep']);
    await s.quest('relic', 'Find the Relic', [{ id: 'map', name: 'Buy the map' }]);
    await s.move('tavern');
    await s.say(line('Mira, we need a map.'), line('She sells it for 5 gold.'));
    await s.command('complete-objective', { questId: 'relic', objectiveId: 'map' });
    await s.say(line('We head out.'));
    await s.move('docks');
    await s.move('tavern');
    await s.settled();
    return s;
  }

  async function observe(app: TestApp, id: string) {
    const get = async (path: string) => {
      const res = await app.http('GET', `/v1/campaigns/${id}${path}`);
      expect(res.status).toBe(200);
      return res.status === 200 && path.includes('format=text') ? res.text : res.body;
    };
    return {
      campaign: await get(''),
      memories: await get('/memories?limit=100'),
      game: await get('/events?limit=1000'),
      memoryEvents: await get('/events?stream=memory&limit=1000'),
      messages: await get('/messages?limit=1000'),
      context: await get('/context'),
      text: await get('/context?format=text'),
    };
  }

  it('has the same state and makes no new model calls for processed triggers', async () => {
    await playSession(await start(), 'restart-same');
    const before = await observe(t!, 'restart-same');
    expect(before.memories.items.length).toBeGreaterThan(0);
    const calls = mock.requests.length;
    await stop();

    const again = await start();
    await scenario(again, 'restart-same').settled();
    expect(await observe(again, 'restart-same')).toEqual(before);
    expect(mock.requests).toHaveLength(calls);

    // The restarted worker is alive: a new trigger is summarized, with only the new messages.
    const s2 = scenario(again, 'restart-same');
    const { indexes } = await s2.say(line('We toast.'));
    await s2.move('docks');
    await s2.settled();
    // Mira's cursor is past her mention, and "We toast." does not name her: only the location scope is called.
    expect(scopeRequests(mock).slice(calls)).toEqual([{ scope: 'location', subject: 'Rusty Anchor', indexes }]);
  });

  it('catches up from the checkpoint when it was stopped while a summary was in flight', async () => {
    const app = await start();
    const s = scenario(app, 'restart-catchup');
    await s.create('Saga');
    await s.location('tavern', 'Rusty Anchor');
    await s.location('docks', 'Docks');
    await s.move('tavern');
    await s.say(line('We order stew.'), line('We pay 3 silver.'));
    mock.setHandler(() => ({ hang: true }));
    const { version } = await s.move('docks');
    await s.say(line('At the docks.'));
    await eventually(() => mock.requests.length === 1);
    const mid = await s.campaign();
    expect(mid.processedVersion).toBeLessThan(version);
    await stop();

    mock.setHandler((body) => ({ text: `Recovered ${scopeOf(body).indexes.join(',')}.` }));
    const again = await start();
    const s2 = scenario(again, 'restart-catchup');
    await s2.settled();
    const campaign = await s2.campaign();
    expect(campaign.processedVersion).toBe(campaign.version);
    expect(campaign.cursors.locations).toEqual({ tavern: 1 });
    expect(mock.requests).toHaveLength(2);
    const memoryEvents = (await again.http('GET', '/v1/campaigns/restart-catchup/events?stream=memory')).body.items;
    expect(memoryEvents.map((e: any) => [e.type, e.data.triggerVersion, e.data.summary])).toEqual([
      ['MemoryRecorded', version, 'Recovered 0,1.'],
    ]);
  });

  it('catches up on boot when events were written and the service closed before the worker finished', async () => {
    const app = await start();
    const s = scenario(app, 'restart-backlog');
    await s.create('Saga');
    await s.location('a', 'A');
    await s.location('b', 'B');
    await s.move('a');
    mock.setHandler(() => ({ hang: true }));
    const triggers: number[] = [];
    for (let i = 0; i < 4; i++) {
      await s.say(line(`Message ${i}.`));
      triggers.push((await s.move(i % 2 === 0 ? 'b' : 'a')).version);
    }
    await stop();

    mock.reset();
    const again = await start();
    const s2 = scenario(again, 'restart-backlog');
    await s2.settled();
    const memories = (await s2.memories('?limit=100')).items;
    expect(
      memories.map((m: any) => [m.subjectId, m.triggerVersion, m.sinceMessageIndex, m.throughMessageIndex]),
    ).toEqual([
      ['b', triggers[3], 3, 3],
      ['a', triggers[2], 2, 2],
      ['b', triggers[1], 1, 1],
      ['a', triggers[0], 0, 0],
    ]);
    expect(scopeRequests(mock).map((r) => r.indexes)).toEqual([[0], [1], [2], [3]]);
  });

  // The WAL file is SQLite's; PostgreSQL has nothing next to a file.
  it('closing the service closes the database: no write-ahead log is left next to the file', async () => {
    const app = await start();
    await scenario(app, 'restart-clean').create('Saga');
    expect(existsSync(`${db.path}-wal`)).toBe(true);
    await stop();
    expect(existsSync(`${db.path}-wal`)).toBe(false);
  });
});
