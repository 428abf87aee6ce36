import fc from 'fast-check';

/**
 * Every HTTP route of the service, with generators of VALID requests; the fuzzer breaks them.
 * A new route = one entry here (keep it in step with apps/memory-service/src/http/controllers).
 */
export interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** Express-style template; `:cid` is the campaign (its version must not move on a rejection). */
  path: string;
  /** Valid values per path parameter (default: `anyKnownId`). */
  params?: Record<string, fc.Arbitrary<string>>;
  /** A valid body (omit for routes without one). */
  body?: fc.Arbitrary<unknown>;
  /** A valid query (values as strings). */
  query?: fc.Arbitrary<Record<string, string>>;
}

/** The campaign the fuzzer seeds before it starts (see `seedFuzzWorld`). */
export const WORLD = {
  campaign: 'fz',
  locations: ['l1', 'l2', 'l3'],
  npcs: ['n1', 'n2'],
  quest: 'q1',
  objectives: Array.from({ length: 50 }, (_, i) => `o${i}`),
  accounts: ['acc1', 'acc2'],
  agents: ['agent1', 'agent2'],
  tools: ['get_status', 'get_map'],
  players: ['aria', 'bron'],
  facts: [
    ['conflict', 'guild-war'],
    ['buff', 'haste'],
  ] as Array<[string, string]>,
};

const knownLocation = fc.constantFrom(...WORLD.locations);
const knownNpc = fc.constantFrom(...WORLD.npcs);
const anId = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,20}$/),
  fc.constantFrom(...WORLD.locations, ...WORLD.npcs, WORLD.quest, 'x'),
);
const aName = fc.oneof(
  fc.constantFrom('Mira', 'The Rusty Anchor', 'Jonas the harbourmaster'),
  fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim().length > 0),
);
const danger = fc.constantFrom('SAFE', 'LOW', 'MODERATE', 'HIGH', 'EXTREME', 'CLEARED');
const intText = (min: number, max: number) => fc.integer({ min, max }).map(String);
const knownAccount = fc.constantFrom(...WORLD.accounts);
const knownTool = fc.constantFrom(...WORLD.tools);
const knownPlayer = fc.constantFrom(...WORLD.players);
const tick = fc.integer({ min: 0, max: 1_000_000 });
const isoTime = fc.constantFrom('2026-01-01T10:00:00Z', '2026-05-05T12:30:00.000Z', '2099-12-31T23:59:59Z');
const futureTime = fc.constantFrom('2099-12-31T23:59:59Z', '2199-01-01T00:00:00.000Z');
const factType = fc.oneof(
  fc.constantFrom(...WORLD.facts.map(([t]) => t), 'trade_route'),
  fc.stringMatching(/^[a-z][a-z0-9_-]{0,12}$/),
);
const factKey = fc.oneof(fc.constantFrom(...WORLD.facts.map(([, k]) => k)), anId);
const dotPath = fc
  .array(fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/), { minLength: 1, maxLength: 3 })
  .map((p) => p.join('.'));
const objectContent = fc.record({
  player: fc.record(
    { credits: fc.integer(), ship: fc.record({ hull: fc.integer({ min: 0, max: 100 }), name: aName }) },
    { requiredKeys: [] },
  ),
});
const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
// Terms have spaces and punctuation ("Void-Chisel", "the Tide Court").
const glossaryTerm = fc.oneof(
  fc.constantFrom('Tide Court', 'Void-Chisel', 'GEOMETERS'),
  fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim().length > 0),
);

const message = fc.record(
  {
    role: fc.constantFrom('player', 'dm', 'npc', 'narrator', 'system'),
    speaker: aName,
    content: fc.string({ minLength: 1, maxLength: 80 }).map((s) => `msg ${s}`),
    locationId: knownLocation,
    npcIds: fc.array(knownNpc, { maxLength: 2 }),
    at: fc.constantFrom('2026-01-01T10:00:00Z', '2026-05-05T12:30:00.000Z'),
  },
  { requiredKeys: ['role', 'content'] },
);

/** §10 `asOf`: the seeded campaign's early versions (always within 1..version). */
const asOf = intText(1, 5);

/** The route table. */
export const ROUTES: RouteSpec[] = [
  { method: 'GET', path: '/health' },
  {
    method: 'POST',
    path: '/v1/campaigns',
    body: fc.record({ id: anId, name: aName, perRoleMemory: fc.boolean() }, { requiredKeys: ['name'] }),
  },
  { method: 'GET', path: '/v1/campaigns/:cid', query: fc.record({ asOf }, { requiredKeys: [] }) },
  // DESIGN §10. A fork of the world campaign is a new campaign (harmless); rewind and delete would undo the world
  // the other routes rely on, so they are fuzzed on an unknown campaign (every answer a 4xx, never a 5xx).
  {
    method: 'POST',
    path: '/v1/campaigns/:cid/fork',
    body: fc.record({ id: anId, name: aName, atVersion: fc.integer({ min: 1, max: 20 }) }, { requiredKeys: [] }),
  },
  {
    method: 'POST',
    path: '/v1/campaigns/:cid/rewind',
    params: { cid: fc.constant('nope') },
    body: fc.record({ toVersion: fc.integer({ min: 1, max: 20 }), keepAs: anId }, { requiredKeys: ['toVersion'] }),
  },
  { method: 'DELETE', path: '/v1/campaigns/:cid', params: { cid: fc.constant('nope') } },
  // DESIGN §15. The import's valid body is an NDJSON export: the fuzzer's JSON bodies are refused (415) or broken.
  { method: 'GET', path: '/v1/campaigns/:cid/export', query: fc.record({ asOf }, { requiredKeys: [] }) },
  {
    method: 'POST',
    path: '/v1/campaigns/import',
    query: fc.record({ id: anId }, { requiredKeys: [] }),
    body: fc.constant({}),
  },
  {
    method: 'GET',
    path: '/v1/campaigns',
    query: fc.record({ limit: intText(1, 100), after: anId }, { requiredKeys: [] }),
  },
  {
    method: 'GET',
    path: '/v1/campaigns/:cid/stream',
    query: fc.record({ after: fc.constantFrom('1:game:0', '1:game:3', '1:memory:1') }, { requiredKeys: [] }),
  },
  {
    method: 'GET',
    path: '/v1/campaigns/:cid/timeline',
    query: fc.record(
      { before: fc.constantFrom('1:game:5', '1:memory:2'), limit: intText(1, 100) },
      { requiredKeys: [] },
    ),
  },
  { method: 'GET', path: '/v1/campaigns/:cid/usage' },
  { method: 'GET', path: '/v1/campaigns/:cid/memories/:memoryId/usage', params: { memoryId: anId } },
  { method: 'GET', path: '/' },
  { method: 'GET', path: '/inspector' },
  {
    method: 'GET',
    path: '/inspector/:file',
    params: { file: fc.constantFrom('inspector.js', 'inspector.css', 'index.html') },
  },
  { method: 'PUT', path: '/v1/campaigns/:cid/settings', body: fc.record({ perRoleMemory: fc.boolean() }) },
  {
    method: 'PUT',
    path: '/v1/campaigns/:cid/locations/:lid',
    params: { lid: fc.oneof(knownLocation, anId) },
    body: fc.record({ name: aName, dangerLevel: danger }, { requiredKeys: ['name'] }),
  },
  {
    method: 'PUT',
    path: '/v1/campaigns/:cid/npcs/:nid',
    params: { nid: fc.oneof(knownNpc, anId) },
    body: fc.record(
      { name: aName, aliases: fc.array(aName, { maxLength: 3 }), locationId: fc.option(knownLocation) },
      { requiredKeys: ['name'] },
    ),
  },
  {
    method: 'PUT',
    path: '/v1/campaigns/:cid/quests/:qid',
    // Never the seeded quest: replacing it would drop the objectives complete-objective aims at.
    params: { qid: fc.oneof(fc.constant('q-fuzz'), anId).filter((id) => id !== WORLD.quest) },
    body: fc.record({
      name: aName,
      objectives: fc.uniqueArray(fc.record({ id: anId, name: aName }), { maxLength: 3, selector: (o) => o.id }),
    }),
  },
  {
    method: 'POST',
    path: '/v1/campaigns/:cid/messages',
    body: fc.record({ messages: fc.array(message, { minLength: 1, maxLength: 4 }) }),
  },
  {
    method: 'GET',
    path: '/v1/campaigns/:cid/messages',
    query: fc.record(
      {
        after: intText(-1, 50),
        limit: intText(1, 1000),
        locationId: knownLocation,
        asOf,
        includeRetracted: fc.constantFrom('true', 'false'),
      },
      { requiredKeys: [] },
    ),
  },
  {
    method: 'POST',
    path: '/v1/campaigns/:cid/commands/change-location',
    body: fc.record({ toLocationId: knownLocation }),
  },
  {
    method: 'POST',
    path: '/v1/campaigns/:cid/commands/complete-objective',
    body: fc.record({ questId: fc.constant(WORLD.quest), objectiveId: fc.constantFrom(...WORLD.objectives) }),
  },
  {
    method: 'POST',
    path: '/v1/campaigns/:cid/commands/complete-quest',
    body: fc.record({ questId: fc.constantFrom(WORLD.quest, 'q-fuzz') }),
  },
  { method: 'POST', path: '/v1/campaigns/:cid/commands/progress-act', body: fc.record({ actId: anId }) },
  {
    method: 'POST',
    path: '/v1/campaigns/:cid/commands/update-location-state',
    body: fc.record(
      { locationId: knownLocation, dangerLevel: danger, completeEncounter: anId },
      { requiredKeys: ['locationId'] },
    ),
  },
  { method: 'POST', path: '/v1/campaigns/:cid/commands/end-round', body: fc.constantFrom({}, undefined) },
  {
    method: 'GET',
    path: '/v1/campaigns/:cid/memories',
    query: fc.record(
      {
        scope: fc.constantFrom('location', 'npc', 'world'),
        subjectId: fc.oneof(knownLocation, knownNpc, fc.constant('world')),
        limit: intText(1, 1000),
        before: anId,
        asOf,
      },
      { requiredKeys: [] },
    ),
  },
  {
    method: 'GET',
    path: '/v1/campaigns/:cid/events',
    query: fc.record(
      { stream: fc.constantFrom('game', 'memory'), after: intText(0, 100), limit: intText(1, 1000), asOf },
      { requiredKeys: [] },
    ),
  },
  {
    method: 'GET',
    path: '/v1/campaigns/:cid/context',
    query: fc
      .record(
        {
          agent: fc.constantFrom('narrative', 'dm', 'player', 'npc', 'agent'),
          limit: intText(1, 100),
          format: fc.constantFrom('json', 'text'),
          minVersion: intText(0, 5),
          waitMs: intText(0, 20),
          viewer: knownNpc,
          include: fc.constantFrom(
            'location',
            'npc,world',
            'recent',
            'bible,glossary,hud,digest,state,previously,recall',
          ),
          budget: intText(50, 5000),
          query: fc.string({ minLength: 1, maxLength: 30 }),
          explain: fc.constantFrom('true', 'false'),
          account: fc.oneof(knownAccount, anId),
          agentId: fc.constantFrom(...WORLD.agents, 'agent-x'),
          tick: intText(0, 1_000_000),
          digestVersion: hex64,
        },
        { requiredKeys: [] },
      )
      // §10: asOf instead of a wait half the time (asOf with minVersion or waitMs is a 400 of its own).
      .chain((q) =>
        fc.constantFrom(
          q,
          Object.fromEntries([
            ...Object.entries(q).filter(([k]) => k !== 'minVersion' && k !== 'waitMs'),
            ['asOf', '2'],
          ]),
        ),
      ),
  },
  // Operations.
  { method: 'GET', path: '/health/ready' },
  { method: 'GET', path: '/metrics' },
  { method: 'GET', path: '/v1/caller' },
  { method: 'GET', path: '/docs/openapi.json' },
  { method: 'GET', path: '/docs-yaml' },
  // Game state (DESIGN §5).
  {
    method: 'PUT',
    path: '/v1/campaigns/:cid/accounts/:acc/snapshots/:tool',
    params: { acc: fc.oneof(knownAccount, anId), tool: fc.oneof(knownTool, anId) },
    // merge: true deep-merges, so it needs object content; a whole replacement may be any JSON value.
    body: fc.oneof(
      fc.record(
        { content: objectContent, tick, capturedAt: isoTime, merge: fc.boolean() },
        { requiredKeys: ['content'] },
      ),
      fc.record({ content: fc.jsonValue({ maxDepth: 3 }), tick, capturedAt: isoTime }, { requiredKeys: ['content'] }),
    ),
  },
  {
    method: 'GET',
    path: '/v1/campaigns/:cid/accounts/:acc/snapshots',
    params: { acc: fc.oneof(knownAccount, anId) },
    query: fc.record({ tick: intText(0, 1_000_000) }, { requiredKeys: [] }),
  },
  {
    method: 'GET',
    path: '/v1/campaigns/:cid/accounts/:acc/snapshots/:tool',
    params: { acc: fc.oneof(knownAccount, anId), tool: fc.oneof(knownTool, anId) },
  },
  {
    method: 'POST',
    path: '/v1/campaigns/:cid/accounts/:acc/actions',
    params: { acc: fc.oneof(knownAccount, anId) },
    body: fc.record({ action: fc.oneof(fc.constantFrom('jump', 'trade'), anId), tick }, { requiredKeys: ['action'] }),
  },
  {
    method: 'POST',
    path: '/v1/campaigns/:cid/accounts/:acc/login',
    params: { acc: fc.oneof(knownAccount, anId) },
    body: fc.record({ agentId: fc.oneof(fc.constantFrom(...WORLD.agents), anId) }),
  },
  {
    method: 'POST',
    path: '/v1/campaigns/:cid/accounts/:acc/register',
    params: { acc: fc.oneof(knownAccount, anId) },
    body: fc.record({ agentId: fc.oneof(fc.constantFrom(...WORLD.agents), anId) }),
  },
  {
    method: 'POST',
    path: '/v1/campaigns/:cid/accounts/:acc/logout',
    params: { acc: fc.oneof(knownAccount, anId) },
    body: fc.constantFrom({}, undefined),
  },
  { method: 'GET', path: '/v1/campaigns/:cid/accounts' },
  {
    method: 'PUT',
    path: '/v1/campaigns/:cid/snapshot-tools/:tool',
    params: { tool: fc.oneof(knownTool, anId) },
    body: fc.record(
      {
        title: aName,
        fields: fc.array(dotPath, { minLength: 1, maxLength: 4 }),
        invalidatedBy: fc.array(fc.oneof(fc.constantFrom('jump', 'trade'), anId), { maxLength: 3 }),
        maxAgeTicks: fc.integer({ min: 1, max: 10_000 }),
      },
      { requiredKeys: [] },
    ),
  },
  { method: 'GET', path: '/v1/campaigns/:cid/snapshot-tools' },
  // World state (DESIGN §6).
  {
    method: 'PUT',
    path: '/v1/campaigns/:cid/facts/:type/:key',
    params: { type: factType, key: factKey },
    body: fc.oneof(
      fc.record(
        {
          value: aName,
          ttlSeconds: fc.integer({ min: 1, max: 86_400 }),
          priority: fc.integer({ min: -1000, max: 1000 }),
        },
        { requiredKeys: ['value'] },
      ),
      fc.record(
        { value: aName, expiresAt: futureTime, priority: fc.integer({ min: -1000, max: 1000 }) },
        { requiredKeys: ['value'] },
      ),
    ),
  },
  {
    method: 'POST',
    path: '/v1/campaigns/:cid/facts/:type/:key/resolve',
    params: { type: factType, key: factKey },
    body: fc.constantFrom({}, undefined),
  },
  {
    method: 'GET',
    path: '/v1/campaigns/:cid/facts',
    query: fc.record({ status: fc.constantFrom('active', 'resolved', 'expired', 'all'), asOf }, { requiredKeys: [] }),
  },
  { method: 'GET', path: '/v1/campaigns/:cid/digest', query: fc.record({ asOf }, { requiredKeys: [] }) },
  {
    method: 'PUT',
    path: '/v1/campaigns/:cid/players/:pid',
    params: { pid: fc.oneof(knownPlayer, anId) },
    body: fc.record(
      {
        name: aName,
        aliases: fc.array(aName, { maxLength: 3 }),
        stats: fc.dictionary(
          fc.constantFrom('HP', 'Gold', 'Level', 'Mood'),
          fc.oneof(fc.constantFrom('12/20', 'grim'), fc.integer({ min: -100, max: 1000 })),
        ),
      },
      { requiredKeys: ['name'] },
    ),
  },
  { method: 'GET', path: '/v1/campaigns/:cid/players' },
  { method: 'GET', path: '/v1/campaigns/:cid/players/:pid', params: { pid: fc.oneof(knownPlayer, anId) } },
  // Search and broadcasts (DESIGN §7).
  {
    method: 'GET',
    path: '/v1/campaigns/:cid/search',
    query: fc.oneof(
      fc.record(
        {
          q: fc.constantFrom('greets', '"the party"', 'hel*', 'Npcn1 OR Aria', 'hello NOT party'),
          in: fc.constantFrom('messages', 'reasoning'),
          limit: intText(1, 100),
          role: fc.constantFrom('player', 'dm', 'npc'),
          locationId: knownLocation,
          asOf,
        },
        { requiredKeys: [] },
      ),
      fc.record(
        {
          q: fc.string({ minLength: 1, maxLength: 20 }),
          in: fc.constant('memories'),
          limit: intText(1, 100),
          locationId: knownLocation,
        },
        { requiredKeys: [] },
      ),
    ),
  },
  {
    method: 'POST',
    path: '/v1/broadcasts',
    body: fc.record(
      {
        content: fc.string({ minLength: 1, maxLength: 80 }).map((s) => `news ${s}`),
        from: fc.oneof(fc.constantFrom(...WORLD.agents), anId),
        visibility: fc.constantFrom('public', 'gm'),
      },
      { requiredKeys: ['content', 'from'] },
    ),
  },
  {
    method: 'GET',
    path: '/v1/broadcasts',
    query: fc.record({ q: fc.constantFrom('news', 'pirates', 'Vega*'), limit: intText(1, 100) }, { requiredKeys: [] }),
  },
  // Bible and glossary (DESIGN §8).
  { method: 'GET', path: '/v1/campaigns/:cid/bible', query: fc.record({ asOf }, { requiredKeys: [] }) },
  {
    method: 'PUT',
    path: '/v1/campaigns/:cid/bible',
    body: fc.record(
      { text: fc.string({ maxLength: 200 }), dmOnly: fc.string({ maxLength: 200 }) },
      { requiredKeys: ['text'] },
    ),
  },
  { method: 'GET', path: '/v1/campaigns/:cid/glossary', query: fc.record({ asOf }, { requiredKeys: [] }) },
  {
    method: 'PUT',
    path: '/v1/campaigns/:cid/glossary/:term',
    params: { term: glossaryTerm },
    body: fc.record({ definition: fc.string({ minLength: 1, maxLength: 80 }).map((s) => `means ${s}`) }),
  },
  { method: 'DELETE', path: '/v1/campaigns/:cid/glossary/:term', params: { term: glossaryTerm } },
  // Timelines (DESIGN §10): retraction and the game master's memory edits.
  {
    method: 'POST',
    path: '/v1/campaigns/:cid/messages/retract',
    body: fc.record(
      {
        indexes: fc.uniqueArray(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 4 }),
        reason: fc.oneof(fc.constant(null), fc.string({ maxLength: 40 })),
      },
      { requiredKeys: ['indexes'] },
    ),
  },
  {
    method: 'PUT',
    path: '/v1/campaigns/:cid/memories/:memoryId',
    params: { memoryId: anId },
    body: fc.record({ summary: fc.string({ minLength: 1, maxLength: 80 }).map((s) => `GM: ${s}`) }),
  },
  { method: 'DELETE', path: '/v1/campaigns/:cid/memories/:memoryId', params: { memoryId: anId } },
  {
    method: 'GET',
    path: '/v1/campaigns/:cid/memories/:memoryId/history',
    params: { memoryId: anId },
    query: fc.record({ asOf: intText(1, 5) }, { requiredKeys: [] }),
  },
];

/** Creates the campaign the routes refer to: locations, NPCs, a quest with many objectives, a few messages. */
export async function seedFuzzWorld(
  call: (method: string, path: string, body?: unknown) => Promise<number>,
): Promise<void> {
  const c = `/v1/campaigns/${WORLD.campaign}`;
  const ok = async (method: string, path: string, body?: unknown) => {
    const status = await call(method, path, body);
    if (status >= 300) throw new Error(`seeding ${method} ${path} → ${status}`);
  };
  await ok('POST', '/v1/campaigns', { id: WORLD.campaign, name: 'Fuzz' });
  for (const l of WORLD.locations) await ok('PUT', `${c}/locations/${l}`, { name: `Location ${l}` });
  for (const [i, n] of WORLD.npcs.entries())
    await ok('PUT', `${c}/npcs/${n}`, { name: `Npc${n}`, locationId: WORLD.locations[i] });
  await ok('PUT', `${c}/quests/${WORLD.quest}`, {
    name: 'Quest',
    objectives: WORLD.objectives.map((id) => ({ id, name: `Objective ${id}` })),
  });
  await ok('POST', `${c}/commands/change-location`, { toLocationId: WORLD.locations[0] });
  await ok('POST', `${c}/messages`, {
    messages: [
      { role: 'dm', content: 'Npcn1 greets the party.' },
      { role: 'player', speaker: 'Aria', content: 'Hello Npcn1.' },
    ],
  });
  // Game and world state the §5–7 routes read: bound accounts, a tool rule, a snapshot, facts, players, a broadcast.
  for (const [i, a] of WORLD.accounts.entries())
    await ok('POST', `${c}/accounts/${a}/login`, { agentId: WORLD.agents[i] });
  await ok('PUT', `${c}/snapshot-tools/${WORLD.tools[1]}`, {
    title: 'Galaxy map',
    fields: ['systems'],
    invalidatedBy: ['jump'],
    maxAgeTicks: 50,
  });
  for (const a of WORLD.accounts)
    for (const tool of WORLD.tools)
      await ok('PUT', `${c}/accounts/${a}/snapshots/${tool}`, {
        content: { player: { credits: 100 }, systems: ['Vega'] },
        tick: 1,
      });
  for (const [type, key] of WORLD.facts)
    await ok('PUT', `${c}/facts/${type}/${key}`, { value: `${type} ${key}`, ttlSeconds: 3600 });
  for (const p of WORLD.players) await ok('PUT', `${c}/players/${p}`, { name: p, stats: { HP: '12/20', Gold: 5 } });
  await ok('POST', '/v1/broadcasts', { content: 'Pirates spotted near Vega', from: WORLD.agents[0] });
}
