import { defaultMockHandler, MockAnthropic, startMockAnthropic } from '../../support/mock-anthropic';
import { MockModelServer } from '../../support/mock-http';
import { MockOpenAi, startMockOpenAi } from '../../support/mock-openai';
import { scopeOf } from '../../support/mock-requests';
import { scenario } from '../../support/scenario';
import { ensureBuilt, ServiceProcess, startServiceProcess } from '../../support/service-process';
import { request, startTestApp, TestApp, tempDb } from '../../support/test-app';
import { createTestSchema, TestSchema, testDatabaseUrl } from '../../support/test-postgres';

const OPENAI_KEY = 'sk-proj-E2E-SECRET-never-in-logs-0123456789';

/** A short campaign: a tavern scene with Mira, a move (location + NPC memory), an objective (world memory). */
async function playCampaign(t: TestApp, id: string) {
  const s = scenario(t, id);
  await s.create('Usage campaign');
  await s.location('tavern', 'The Rusty Anchor');
  await s.location('docks', 'The Docks');
  await s.npc('mira', 'Mira', 'tavern');
  await s.quest('debt', 'The Debt', [{ id: 'collect', name: 'Collect the debt' }]);
  await s.move('tavern');
  await s.say(
    { role: 'dm', content: 'The tavern is warm; Mira polishes a mug.' },
    { role: 'player', content: 'Mira, who owes you money?' },
    { role: 'npc', speaker: 'Mira', content: 'Brannoc owes me 30 gold. Bring it by Friday.' },
  );
  await s.move('docks');
  await s.say({ role: 'dm', content: 'At the docks Brannoc pays the 30 gold.' });
  await s.command('complete-objective', { questId: 'debt', objectiveId: 'collect' });
  await s.settled();
  return s;
}

type Sums = { calls: number; input: number; output: number; cacheRead: number; cacheWrite: number };
const zero = (): Sums => ({ calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

/** What the mock says it delivered, per scope of the prompt (location, npc, world, other). */
function deliveredByScope(mock: MockModelServer<object>): Record<string, Sums> {
  const out: Record<string, Sums> = {};
  for (const a of mock.answered) {
    const scope = scopeOf(a.body).scope;
    const s = (out[scope] ??= zero());
    s.calls += 1;
    s.input += a.usage.input;
    s.output += a.usage.output;
    s.cacheRead += a.usage.cacheRead;
    s.cacheWrite += a.usage.cacheWrite;
  }
  return out;
}

const ledgerSums = (t: {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}): Sums => ({
  calls: t.calls,
  input: t.inputTokens,
  output: t.outputTokens,
  cacheRead: t.cacheReadTokens,
  cacheWrite: t.cacheWriteTokens,
});

describe.each([
  [
    'anthropic',
    async () => startMockAnthropic(),
    (m: MockModelServer<object>) => ({
      SUMMARIZER: 'anthropic',
      ANTHROPIC_API_KEY: 'sk-ant-e2e-key-0123456789',
      ANTHROPIC_BASE_URL: m.baseUrl,
    }),
    'claude-haiku-4-5',
  ],
  [
    'openai',
    async () => startMockOpenAi(),
    (m: MockModelServer<object>) => ({
      SUMMARIZER: 'openai',
      OPENAI_BASE_URL: m.baseUrl,
      OPENAI_MODEL: 'llama3.2',
      MODEL_PRICES: '{"llama3.2":{"input":0.5,"output":1.5}}',
    }),
    'llama3.2',
  ],
] as const)('usage ledger: a campaign on %s', (provider, startMock, envOf, model) => {
  let mock: MockModelServer<object>;
  let t: TestApp;
  beforeAll(async () => {
    mock = (await startMock()) as MockModelServer<object>;
    t = await startTestApp({ env: envOf(mock) as Record<string, string> });
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
  });

  it('records every call; /usage totals equal the usage the mock delivered, per scope and per campaign', async () => {
    const s = await playCampaign(t, `u-${provider}`);
    const memories = (await s.memories()).items;
    expect(memories.map((m: { scope: string }) => m.scope).sort()).toEqual(['location', 'npc', 'world']);

    const usage = (await t.http('GET', `/v1/campaigns/u-${provider}/usage`)).body;
    const delivered = {
      calls: mock.delivered.calls,
      input: mock.delivered.input,
      output: mock.delivered.output,
      cacheRead: mock.delivered.cacheRead,
      cacheWrite: mock.delivered.cacheWrite,
    };
    expect(delivered.calls).toBeGreaterThanOrEqual(3);
    expect(ledgerSums(usage.totals)).toEqual(delivered);
    const byScope = deliveredByScope(mock);
    for (const scope of ['location', 'npc', 'world']) {
      expect({ scope, ...ledgerSums(usage.byScope.find((x: { scope: string }) => x.scope === scope)) }).toEqual({
        scope,
        ...byScope[scope],
      });
    }
    expect(usage.byModel.map((m: { model: string }) => m.model)).toEqual([model]);
    expect(usage.totals.failedCalls).toBe(0);
    expect(usage.totals.estimatedCost).toBeGreaterThan(0);
    // The fixed instructions went to the prompt cache.
    if (provider === 'anthropic') expect(usage.totals.cacheWriteTokens).toBeGreaterThan(0);

    // Each memory lists its own calls; together they are the memory scopes' calls.
    let listed = 0;
    for (const m of memories) {
      const res = await t.http('GET', `/v1/campaigns/u-${provider}/memories/${encodeURIComponent(m.id)}/usage`);
      expect(res.status).toBe(200);
      expect(res.body.calls).toEqual([expect.objectContaining({ scope: m.scope, attempt: 1, outcome: 'ok', model })]);
      listed += res.body.calls.length;
    }
    expect(listed).toBe(byScope.location.calls + byScope.npc.calls + byScope.world.calls);

    // /metrics carries the same counters.
    const metrics = (await t.http('GET', '/metrics')).text;
    expect(metrics).toContain(
      `lorekeeper_model_calls_total{scope="location",model="${model}",outcome="ok"} ${byScope.location.calls}`,
    );
    expect(metrics).toContain(
      `lorekeeper_model_tokens_total{scope="npc",model="${model}",kind="output"} ${byScope.npc.output}`,
    );
  });

  it('answers 404 problem+json for an unknown campaign or memory, and 400 for a bad id', async () => {
    const none = await t.http('GET', '/v1/campaigns/nope/usage');
    expect(none.status).toBe(404);
    expect(none.headers.get('content-type')).toMatch(/application\/problem\+json/);
    const mem = await t.http('GET', `/v1/campaigns/u-${provider}/memories/nope/usage`);
    expect(mem.status).toBe(404);
    expect(mem.body.code).toBe('MEMORY_NOT_FOUND');
    expect((await t.http('GET', '/v1/campaigns/bad%20id/usage')).status).toBe(400);
  });
});

describe('usage ledger: failed attempts and secrets (openai-compatible)', () => {
  let mock: MockOpenAi;
  let t: TestApp;
  const logs: string[] = [];
  beforeAll(async () => {
    mock = await startMockOpenAi();
    t = await startTestApp({
      logs,
      env: {
        SUMMARIZER: 'openai',
        OPENAI_BASE_URL: mock.baseUrl,
        OPENAI_MODEL: 'gpt-4o-mini',
        OPENAI_API_KEY: OPENAI_KEY,
        SUMMARY_ATTEMPTS: '2',
        MODEL_PRICES: '{"gpt-4o-mini":{"input":0.15,"output":0.6}}',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
  });

  it('counts failed attempts with their memory, a skipped summary apart, and never shows the API key', async () => {
    // The location summary fails once (429) then succeeds; the NPC one fails both attempts with the key echoed back.
    mock.setHandler((body) => {
      const scope = scopeOf(body).scope;
      const tries = mock.requests.filter((r) => scopeOf(r.body).scope === scope).length;
      if (scope === 'location' && tries === 1) return { status: 429, headers: { 'retry-after': '20' } };
      if (scope === 'npc')
        return {
          status: 401,
          body: { error: { message: `Incorrect API key provided: ${OPENAI_KEY}`, type: 'invalid_request_error' } },
        };
      return { text: `Summary: ${scope}.` };
    });
    const s = await playCampaign(t, 'u-fail');
    const usage = (await t.http('GET', '/v1/campaigns/u-fail/usage')).body;
    const scope = (name: string) => usage.byScope.find((x: { scope: string }) => x.scope === name);
    expect(scope('location')).toMatchObject({ calls: 2, failedCalls: 1 });
    expect(scope('npc')).toMatchObject({ calls: 2, failedCalls: 2, inputTokens: 0 });
    expect(usage.totals.calls).toBe(mock.requests.length);
    expect(ledgerSums(usage.totals)).toMatchObject({ input: mock.delivered.input, output: mock.delivered.output });
    expect(usage.totals.wastedCost).toBe(0); // failed attempts here reported no tokens

    const location = (await s.memories('?scope=location')).items[0];
    const calls = (await t.http('GET', `/v1/campaigns/u-fail/memories/${encodeURIComponent(location.id)}/usage`)).body
      .calls;
    expect(calls.map((c: { attempt: number; outcome: string }) => [c.attempt, c.outcome])).toEqual([
      [1, 'error'],
      [2, 'ok'],
    ]);

    const everything = [
      logs.join('\n'),
      (await t.http('GET', '/metrics')).text,
      JSON.stringify(usage),
      (await t.http('GET', '/v1/campaigns/u-fail/events?stream=memory')).text,
    ].join('\n');
    expect(everything).toContain('401'); // the failure is visible…
    expect(everything).not.toContain('E2E-SECRET'); // …the key is not
    expect(mock.requests[0].headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
  });
});

describe('usage ledger: a graceful shutdown during a summary (openai-compatible)', () => {
  it('records the calls of the trigger it abandons as abandoned, and their tokens once', async () => {
    const mock = await startMockOpenAi();
    const db = tempDb();
    const env = {
      SUMMARIZER: 'openai',
      OPENAI_BASE_URL: mock.baseUrl,
      OPENAI_MODEL: 'llama3.2',
      SUMMARY_TIMEOUT_MS: '20000',
    };
    try {
      // The location summary is answered, the NPC one hangs until the service shuts down.
      mock.setHandler((body) =>
        scopeOf(body).scope === 'npc' && mock.requests.length < 3
          ? { hang: true }
          : { text: `Summary: ${scopeOf(body).scope}.` },
      );
      let t = await startTestApp({ dbPath: db.path, env });
      const s = scenario(t, 'u-stop');
      await s.create('Stop');
      await s.location('tavern', 'The Rusty Anchor');
      await s.location('docks', 'The Docks');
      await s.npc('mira', 'Mira', 'tavern');
      await s.move('tavern');
      await s.say({ role: 'npc', speaker: 'Mira', content: 'Mira counts the 30 gold Brannoc owes her.' });
      await s.move('docks');
      const deadline = Date.now() + 10_000;
      while (mock.requests.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(mock.delivered.calls).toBe(1);
      await t.close();

      t = await startTestApp({ dbPath: db.path, env });
      try {
        await scenario(t, 'u-stop').settled();
        const usage = (await t.http('GET', '/v1/campaigns/u-stop/usage')).body;
        // Before the shutdown: the answered location call and the hanging NPC call, both abandoned; after: both again.
        expect(usage.totals).toMatchObject({ calls: 4, abandonedCalls: 2, failedCalls: 0 });
        expect(usage.totals.inputTokens).toBe(mock.delivered.input);
        expect(usage.totals.outputTokens).toBe(mock.delivered.output);
        expect(mock.delivered.calls).toBe(3);
      } finally {
        await t.close();
      }
    } finally {
      await mock.close();
      db.cleanup();
    }
  });
});

describe('usage ledger: the local summarizer', () => {
  it('counts its calls at no cost', async () => {
    const t = await startTestApp();
    try {
      await playCampaign(t, 'u-local');
      const usage = (await t.http('GET', '/v1/campaigns/u-local/usage')).body;
      expect(usage.byModel).toEqual([
        expect.objectContaining({ model: 'local', calls: 3, failedCalls: 0, estimatedCost: 0 }),
      ]);
      expect(usage.unpricedModels).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

jest.setTimeout(90_000);

/** The built service, killed with SIGKILL while a summary is in flight, then restarted (SQLite or PostgreSQL). */
describe('usage ledger: kill -9 during a summary and restart (built service)', () => {
  let mock: MockAnthropic;
  let hangAt = -1;
  const db = tempDb();
  const procs: ServiceProcess[] = [];
  let schema: TestSchema | undefined;
  beforeAll(async () => {
    ensureBuilt();
    const pg = testDatabaseUrl();
    if (pg) schema = await createTestSchema(pg);
    mock = await startMockAnthropic();
    mock.setHandler((body, n) => (n === hangAt ? { hang: true } : defaultMockHandler(body, n)));
  });
  afterAll(async () => {
    for (const p of procs) p.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await mock.close();
    await schema?.drop();
    db.cleanup();
  });

  const boot = async () => {
    const p = await startServiceProcess({
      dbPath: db.path,
      env: {
        ...(schema ? { DATABASE_URL: schema.url } : {}),
        SUMMARIZER: 'anthropic',
        ANTHROPIC_API_KEY: 'sk-ant-kill-key-0123456789',
        ANTHROPIC_BASE_URL: mock.baseUrl,
        SUMMARY_TIMEOUT_MS: '20000',
      },
    });
    procs.push(p);
    return p;
  };
  const until = async (ok: () => boolean | Promise<boolean>, ms = 15_000) => {
    const deadline = Date.now() + ms;
    while (!(await ok())) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  it('neither loses nor double-counts a call: one paid for before the crash counts once, abandoned', async () => {
    let p = await boot();
    const call = (method: string, path: string, body?: unknown) =>
      request(p.url, method, `/v1/campaigns/k${path}`, body);
    expect((await request(p.url, 'POST', '/v1/campaigns', { id: 'k', name: 'Kill' })).status).toBe(201);
    await call('PUT', '/locations/a', { name: 'Alpha' });
    await call('PUT', '/locations/b', { name: 'Beta' });
    await call('PUT', '/npcs/n', { name: 'Nessa', locationId: 'b' });
    await call('POST', '/commands/change-location', { toLocationId: 'a' });
    await call('POST', '/messages', { messages: [{ role: 'dm', content: 'Alpha scene one.' }] });
    await call('POST', '/commands/change-location', { toLocationId: 'b' });
    await until(() => mock.delivered.calls === 1);
    // Leaving Beta makes a location summary (answered) and then Nessa's (hangs): the service dies in between.
    hangAt = 2;
    await call('POST', '/messages', { messages: [{ role: 'dm', content: 'Nessa greets the party in Beta.' }] });
    await call('POST', '/commands/change-location', { toLocationId: 'a' });
    await until(() => mock.requests.length === 3);
    expect(mock.delivered.calls).toBe(2);
    p.kill('SIGKILL');
    await p.exited;

    p = await boot();
    const version = (await call('GET', '')).body.version;
    await call('GET', `/context?minVersion=${version}&waitMs=15000`);
    const memories = (await call('GET', '/memories')).body.items;
    expect(memories.map((m: { scope: string }) => m.scope).sort()).toEqual(['location', 'location', 'npc']);
    const usage = (await call('GET', '/usage')).body;
    const delivered = mock.delivered;
    expect(ledgerSums(usage.totals)).toEqual({
      calls: delivered.calls,
      input: delivered.input,
      output: delivered.output,
      cacheRead: delivered.cacheRead,
      cacheWrite: delivered.cacheWrite,
    });
    expect(usage.totals).toMatchObject({ calls: 4, abandonedCalls: 1, failedCalls: 0 });
    for (const m of memories)
      expect((await call('GET', `/memories/${encodeURIComponent(m.id)}/usage`)).body.calls).toEqual([
        expect.objectContaining({ outcome: 'ok' }),
      ]);
  });
});

describe('bad model configuration stops the start (built service)', () => {
  beforeAll(() => ensureBuilt());
  it.each([
    [{ SUMMARIZER: 'mistral' }, 'SUMMARIZER'],
    [{ SUMMARIZER: 'openai', OPENAI_MODEL: 'llama3.2' }, 'OPENAI_BASE_URL'],
    [{ SUMMARIZER: 'openai', OPENAI_BASE_URL: 'http://localhost:11434/v1' }, 'OPENAI_MODEL'],
    [{ MODEL_PRICES: '{"m":{"input":"cheap"}}' }, 'MODEL_PRICES'],
  ])('%j → a message naming %s', async (env, name) => {
    const db = tempDb();
    try {
      const failed = await startServiceProcess({ dbPath: db.path, env: { ...env, OPENAI_API_KEY: OPENAI_KEY } }).then(
        (p) => {
          p.kill('SIGKILL');
          return '';
        },
        (err: Error) => err.message,
      );
      expect(failed).toMatch(/service exited during boot/);
      expect(failed).toContain(name);
      expect(failed).not.toContain('E2E-SECRET');
    } finally {
      db.cleanup();
    }
  });
});
