import { z } from 'zod';

// The service validates every request itself; these schemas exist so a model sees the exact shape in
// tools/list and a typo in a field name fails at once instead of being dropped on the way.
// The enums mirror the service's (mcp.schemas.spec.ts checks that they have not drifted).
export const MESSAGE_ROLES = ['player', 'dm', 'npc', 'narrator', 'system', 'assistant', 'tool'] as const;
export const VISIBILITIES = ['public', 'private', 'dm'] as const;
export const DANGER_LEVELS = ['SAFE', 'LOW', 'MODERATE', 'HIGH', 'EXTREME', 'CLEARED'] as const;
export const CLOCKS = ['story', 'wall', 'none'] as const;
export const AGENTS = ['narrative', 'dm', 'player', 'npc', 'agent'] as const;
export const FACT_STATUSES = ['active', 'resolved', 'expired', 'all'] as const;

export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const id = z.string().regex(ID_PATTERN, 'must match ^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$');
const campaignId = id.describe('campaign id');
const name = z.string().min(1).max(200);
const isoTime = z.string().min(1).max(40).describe('ISO 8601 date-time, e.g. 2026-11-23T07:27:00Z');
const tick = z.number().int().min(0).describe('the game tick (integer ≥ 0)');

/** Idempotency-Key and If-Match of the service's event-sourced writes (DESIGN §3). */
export const writeOptions = {
  idempotencyKey: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('retry-safe: the same key and arguments return the first answer and record nothing twice'),
  ifMatch: z
    .union([z.number().int().min(0), z.string().regex(/^\d{1,9}:\d{1,9}$/)])
    .optional()
    .describe(
      'the campaign version you expect, or "<timeline>:<version>" (exact across rewinds); the write fails with ' +
        '412 VERSION_MISMATCH if it moved',
    ),
};
// Memory ids are `<campaign>:<triggerVersion>:<scope>:<subject>`: longer than a plain id may be.
const memoryId = z.string().min(1).max(600).describe('a memory id, as list_memories shows it');
const asOf = z
  .number()
  .int()
  .min(1)
  .optional()
  .describe('read as the campaign stood when its game stream was at this version');

/** §8 story time: free text, one line ("Day 3 of Frostmoon, dusk"); the campaign's story time from then on. */
const storyTime = z
  .string()
  .min(1)
  .max(80)
  .regex(/^[^\n\r]*$/)
  .optional()
  .describe('the story time it happens at (free text, one line); the campaign keeps it until the next one');

export const messageInput = z.strictObject({
  role: z.enum(MESSAGE_ROLES),
  content: z.string().max(16000).describe('may be empty only for an assistant message that carries toolCalls'),
  speaker: z.string().min(1).max(200).nullable().optional().describe('who speaks; a player or NPC name/id/alias'),
  locationId: id.nullable().optional().describe('where it was said (default: the party location)'),
  npcIds: z.array(id).max(100).optional().describe('NPCs the message is about or addressed to'),
  at: isoTime.optional().describe('when it happened, in-world or wall time (ISO 8601); default: now'),
  visibility: z
    .enum(VISIBILITIES)
    .optional()
    .describe('public (default): everyone present; private: only `audience` (a whisper); dm: the dm agent only'),
  audience: z
    .array(id)
    .max(100)
    .optional()
    .describe('player/NPC ids who hear a private message (needs visibility private)'),
  toolCalls: z
    .array(z.strictObject({ id, name: id }))
    .max(64)
    .optional()
    .describe('assistant messages: the game tools it called, so later tool results can be matched to them'),
  toolCallId: id.optional().describe('tool messages: the id of the call this result answers'),
  reasoning: z.string().max(16000).optional().describe('the model reasoning behind the message (searchable)'),
  storyTime,
});

export const input = {
  createCampaign: {
    id: id.optional().describe('your id for the campaign; omitted = generated'),
    name,
    perRoleMemory: z.boolean().optional().describe('one rolling summary per player over what it witnessed'),
    ...writeOptions,
  },
  campaign: { campaignId },
  listCampaigns: {
    limit: z.number().int().min(1).max(100).optional().describe('at most this many (default 50)'),
    after: id.optional().describe('the last id of the previous page: campaigns are listed by id'),
  },
  deleteCampaign: { campaignId, ...writeOptions },
  settings: {
    campaignId,
    perRoleMemory: z.boolean().optional().describe('one rolling summary per player over what it witnessed'),
    clock: z.enum(CLOCKS).optional().describe('how contexts date lines: story time (default), wall `at`, or none'),
    ...writeOptions,
  },
  location: { campaignId, locationId: id, name, dangerLevel: z.enum(DANGER_LEVELS).optional(), ...writeOptions },
  npc: {
    campaignId,
    npcId: id,
    name,
    aliases: z.array(z.string().min(1).max(100)).max(20).optional(),
    locationId: id.nullable().optional().describe('where the NPC is; null = nowhere'),
    ...writeOptions,
  },
  player: {
    campaignId,
    playerId: id,
    name,
    aliases: z.array(z.string().min(1).max(100)).max(20).optional(),
    stats: z
      .record(z.string().min(1).max(40), z.union([z.string().min(1).max(100), z.number()]))
      .optional()
      .describe('HUD stats in display order, e.g. {"HP": "12/20", "Gold": 40}'),
    ...writeOptions,
  },
  quest: {
    campaignId,
    questId: id,
    name,
    objectives: z.array(z.strictObject({ id, name })).max(100),
    ...writeOptions,
  },
  bible: {
    campaignId,
    text: z.string().max(32000).describe('what every agent may know: roster, lore, hook'),
    dmOnly: z.string().max(32000).optional().describe('what only the dm sees; omitted = kept as it is'),
    ...writeOptions,
  },
  recordMessages: { campaignId, messages: z.array(messageInput).min(1).max(500), ...writeOptions },
  listMessages: {
    campaignId,
    after: z.number().int().min(-1).optional().describe('exclusive message index; omitted = from the start'),
    limit: z.number().int().min(1).max(1000).optional(),
    locationId: id.optional(),
  },
  changeLocation: {
    campaignId,
    toLocationId: id,
    players: z.array(id).min(1).max(100).optional().describe('move only these players (a split party)'),
    storyTime,
    ...writeOptions,
  },
  completeObjective: { campaignId, questId: id, objectiveId: id, storyTime, ...writeOptions },
  completeQuest: { campaignId, questId: id, storyTime, ...writeOptions },
  progressAct: { campaignId, actId: id, storyTime, ...writeOptions },
  updateLocationState: {
    campaignId,
    locationId: id,
    dangerLevel: z.enum(DANGER_LEVELS).optional(),
    completeEncounter: id.optional().describe('an encounter id to mark completed (records a world memory)'),
    storyTime,
    ...writeOptions,
  },
  endRound: { campaignId, storyTime, ...writeOptions },
  assertFact: {
    campaignId,
    type: z
      .string()
      .regex(/^[a-z][a-z0-9_-]{0,39}$/)
      .describe(
        'conflict, relationship, debt, quest, reputation, alliance, record (durable) ' +
          'or buff, debuff, alert, rumor, timer (need a TTL)',
      ),
    key: id,
    value: z.string().min(1).max(500),
    ttlSeconds: z.number().int().min(1).optional(),
    expiresAt: isoTime.optional(),
    priority: z.number().int().optional().describe('higher survives the digest budget longer (default 0)'),
    ...writeOptions,
  },
  resolveFact: { campaignId, type: z.string().regex(/^[a-z][a-z0-9_-]{0,39}$/), key: id, ...writeOptions },
  listFacts: { campaignId, status: z.enum(FACT_STATUSES).optional() },
  storeSnapshot: {
    campaignId,
    account: id,
    tool: id.describe('the game tool whose latest result this is, e.g. get_status'),
    content: z
      .unknown()
      .refine((v) => v !== undefined, 'is required')
      .describe('the tool result (any JSON)'),
    tick: tick.optional(),
    capturedAt: isoTime.optional(),
    merge: z.boolean().optional().describe('deep-merge into the stored content (partial tools)'),
  },
  snapshot: { campaignId, account: id, tool: id },
  listSnapshots: { campaignId, account: id, tick: tick.optional() },
  reportAction: {
    campaignId,
    account: id,
    action: id.describe('travel, mine, buy, sell, attack, …'),
    tick: tick.optional(),
  },
  login: { campaignId, account: id, agentId: id, ...writeOptions },
  logout: { campaignId, account: id, ...writeOptions },
  snapshotTool: {
    campaignId,
    tool: id,
    title: z.string().min(1).max(200).optional(),
    fields: z.array(z.string().min(1).max(200)).min(1).max(50).optional().describe('dot paths shown in the context'),
    invalidatedBy: z.array(id).max(50).optional().describe('actions that make this tool stale'),
    maxAgeTicks: z.number().int().min(1).optional(),
  },
  glossaryTerm: {
    campaignId,
    term: z.string().min(1).max(100),
    definition: z.string().min(1).max(1000),
    ...writeOptions,
  },
  hideTerm: { campaignId, term: z.string().min(1).max(100), ...writeOptions },
  context: {
    campaignId,
    agent: z
      .enum(AGENTS)
      .optional()
      .describe('narrative (default), dm, player/npc (need viewer), agent (tool-using: game state)'),
    viewer: id.optional().describe('player or NPC id: only what that character witnessed'),
    include: z
      .array(z.string().regex(/^[a-z]+$/))
      .min(1)
      .max(20)
      .optional()
      .describe(
        'exactly these section keys: bible, glossary, hud, digest, scene, state, previously, location, npc, ' +
          'world, recall, recent',
      ),
    budget: z.number().int().min(50).max(200000).optional().describe('token budget (default 4000)'),
    query: z.string().min(1).max(2000).optional().describe('the current prompt: recalls older matching items'),
    format: z
      .enum(['text', 'json'])
      .optional()
      .describe('text (default): prompt-ready; json: sections, tokens, dropped'),
    limit: z.number().int().min(1).max(100).optional().describe('memories per memory section'),
    digestVersion: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional()
      .describe('the World State version you already hold: leaves the unchanged digest out'),
    account: id.optional().describe('game account whose snapshots fill Current Game State'),
    agentId: id.optional().describe('or the agent bound to the account by login'),
    tick: tick.optional().describe('the current game tick, for "N ticks ago"'),
    minVersion: z.number().int().min(0).optional().describe('wait until the memory worker has processed this version'),
    waitMs: z.number().int().min(0).max(30000).optional().describe('how long to wait for minVersion'),
    explain: z.boolean().optional().describe('text form: end with the token/dropped comment line (default true)'),
  },
  listMemories: {
    campaignId,
    scope: z.enum(['location', 'npc', 'world']).optional(),
    subjectId: id.optional().describe('location or NPC id'),
    limit: z.number().int().min(1).max(1000).optional(),
    before: z.string().min(1).max(300).optional().describe('a memory id: older ones only (paging)'),
  },
  searchMessages: {
    campaignId,
    q: z.string().min(1).max(256).describe('words (ANDed), "a phrase", prefix*, OR, NOT'),
    role: z.enum(MESSAGE_ROLES).optional(),
    locationId: id.optional(),
    limit: z.number().int().min(1).max(100).optional(),
  },
  searchMemories: {
    campaignId,
    q: z.string().min(1).max(256).describe('words (ANDed), "a phrase", prefix*, OR, NOT'),
    locationId: id.optional(),
    limit: z.number().int().min(1).max(100).optional(),
  },
  searchBroadcasts: {
    q: z.string().min(1).max(256).optional().describe('omitted = newest first'),
    limit: z.number().int().min(1).max(100).optional(),
  },
  postBroadcast: { content: z.string().min(1).max(16000), from: id.describe('your agent id'), ...writeOptions },
  // Timelines (DESIGN §10).
  forkCampaign: {
    campaignId,
    id: id.optional().describe('the new campaign’s id; omitted = generated'),
    name: name.optional().describe('omitted = the parent’s name'),
    atVersion: z.number().int().min(1).optional().describe('the parent version to branch at; omitted = now'),
    ...writeOptions,
  },
  rewindCampaign: {
    campaignId,
    toVersion: z.number().int().min(1).describe('the version to go back to; everything after it is discarded'),
    keepAs: id.optional().describe('first keep the whole campaign as a fork with this id (a what-if to return to)'),
    ...writeOptions,
  },
  retractMessages: {
    campaignId,
    indexes: z.array(z.number().int().min(0)).min(1).max(500).describe('message indexes to retract (distinct)'),
    reason: z.string().max(500).optional().describe('why, e.g. "regenerated"; kept with the retraction'),
    ...writeOptions,
  },
  correctMemory: {
    campaignId,
    memoryId,
    summary: z.string().min(1).max(2000).describe('the memory as it should read from now on'),
    ...writeOptions,
  },
  deleteMemory: { campaignId, memoryId, ...writeOptions },
  memoryHistory: { campaignId, memoryId, asOf },
};

// Outputs: the fields an agent relies on are typed; loose objects, so a field the service adds later is
// passed through instead of failing the client's validation.
const version = z.number().int();
const versioned = z.looseObject({ version });
const items = (item: z.ZodType) => z.looseObject({ items: z.array(item) });
const hit = z.looseObject({
  kind: z.string(),
  ref: z.union([z.number(), z.string()]),
  snippet: z.string(),
  score: z.number(),
  at: z.string().nullable().optional(),
});

export const output = {
  campaign: z.looseObject({
    id: z.string(),
    name: z.string(),
    version,
    processedVersion: z.number().int(),
    currentLocationId: z.string().nullable(),
  }),
  campaigns: items(
    z.looseObject({
      id: z.string(),
      name: z.string(),
      version,
      processedVersion: z.number().int(),
      parent: z.looseObject({ id: z.string(), version }).nullable(),
    }),
  ),
  deletedCampaign: z.looseObject({ deleted: z.boolean(), campaignId: z.string() }),
  versioned,
  recorded: z.looseObject({ indexes: z.array(z.number().int()), version }),
  messages: items(
    z.looseObject({
      index: z.number().int(),
      role: z.string(),
      content: z.string(),
      visibility: z.string(),
      audience: z.array(z.string()),
    }),
  ),
  players: items(z.looseObject({ id: z.string(), name: z.string() })),
  bible: z.looseObject({ text: z.string(), dmOnly: z.string().optional() }),
  facts: items(z.looseObject({ type: z.string(), key: z.string(), value: z.string(), status: z.string() })),
  digest: z.looseObject({
    version: z.string(),
    text: z.string(),
    tokens: z.number().int(),
    dropped: z.array(z.unknown()),
  }),
  snapshotStored: z.looseObject({ tool: z.string(), bytes: z.number().int() }),
  snapshot: z.looseObject({ tool: z.string(), stale: z.boolean(), content: z.unknown() }),
  snapshots: items(z.looseObject({ tool: z.string(), stale: z.boolean() })),
  stale: z.looseObject({ stale: z.array(z.string()) }),
  login: z.looseObject({ version, account: z.string(), agentId: z.string() }),
  logout: z.looseObject({ version, account: z.string(), loggedOut: z.boolean() }),
  snapshotTool: z.looseObject({ tool: z.string() }),
  glossary: items(z.looseObject({ term: z.string(), definition: z.string() })),
  context: z.looseObject({
    format: z.enum(['text', 'json']),
    text: z.string().optional().describe('format text: the prompt-ready context'),
    version: z.number().int().optional(),
    processedVersion: z.number().int().optional(),
    sections: z.array(z.looseObject({ title: z.string(), entries: z.array(z.unknown()) })).optional(),
    tokens: z.looseObject({ budget: z.number(), used: z.number() }).optional(),
    dropped: z.array(z.unknown()).optional(),
  }),
  memories: items(
    z.looseObject({ id: z.string(), scope: z.string(), subjectId: z.string().nullable(), summary: z.string() }),
  ),
  hits: items(hit),
  broadcast: z.looseObject({ id: z.string(), content: z.string(), from: z.string(), at: z.string() }),
  timelined: z.looseObject({ version, timeline: z.number().int() }),
  rewound: z.looseObject({ version, timeline: z.number().int(), discarded: z.looseObject({}) }),
  correctedMemory: z.looseObject({ id: z.string(), summary: z.string(), origin: z.string(), version }),
  deletedMemory: z.looseObject({ deleted: z.boolean(), memoryId: z.string() }),
  memoryHistory: items(
    z.looseObject({
      revision: z.number().int(),
      summary: z.string(),
      origin: z.string(),
      reason: z.string(),
      version,
    }),
  ),
};
