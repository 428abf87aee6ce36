import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

// jest ignores the e2e project's testTimeout (a global option): booting apps inside a test needs more than 5 s cold.
jest.setTimeout(60_000);

const CID = 'val';
const C = `/v1/campaigns/${CID}`;
const long = (n: number, ch = 'a') => ch.repeat(n);
const msg = (extra: Record<string, unknown> = {}) => ({ role: 'player', content: 'hello', ...extra });
const say = (...messages: unknown[]) => ({ messages });

interface Case {
  name: string;
  method: string;
  path: string;
  /** A string is sent as is (with content-type application/json unless headers say otherwise). */
  body?: unknown;
  headers?: Record<string, string>;
  status: number;
  code: string;
  /** A campaign id that must still not exist afterwards. */
  absent?: string;
}

const bad = (
  name: string,
  method: string,
  path: string,
  body: unknown,
  status: number,
  code: string,
  extra: Partial<Case> = {},
): Case => ({ name, method, path, body, status, code, ...extra });
const invalid = (name: string, method: string, path: string, body: unknown, extra: Partial<Case> = {}) =>
  bad(name, method, path, body, 400, 'VALIDATION_FAILED', extra);

/** Every route that takes a campaign id, with a body that would be valid for the fixture. */
const CAMPAIGN_ROUTES: Array<[string, (cid: string) => string, unknown]> = [
  ['GET', (c) => `/v1/campaigns/${c}`, undefined],
  ['PUT', (c) => `/v1/campaigns/${c}/settings`, { perRoleMemory: true }],
  ['PUT', (c) => `/v1/campaigns/${c}/locations/crypt`, { name: 'Crypt' }],
  ['PUT', (c) => `/v1/campaigns/${c}/npcs/eli`, { name: 'Eli' }],
  ['PUT', (c) => `/v1/campaigns/${c}/quests/q2`, { name: 'Q2', objectives: [] }],
  ['POST', (c) => `/v1/campaigns/${c}/messages`, say(msg())],
  ['POST', (c) => `/v1/campaigns/${c}/commands/change-location`, { toLocationId: 'docks' }],
  ['POST', (c) => `/v1/campaigns/${c}/commands/complete-objective`, { questId: 'relic', objectiveId: 'crypt' }],
  ['POST', (c) => `/v1/campaigns/${c}/commands/complete-quest`, { questId: 'relic' }],
  ['POST', (c) => `/v1/campaigns/${c}/commands/progress-act`, { actId: 'act-2' }],
  ['POST', (c) => `/v1/campaigns/${c}/commands/update-location-state`, { locationId: 'docks', dangerLevel: 'HIGH' }],
  ['POST', (c) => `/v1/campaigns/${c}/commands/end-round`, {}],
  ['GET', (c) => `/v1/campaigns/${c}/memories`, undefined],
  ['GET', (c) => `/v1/campaigns/${c}/events`, undefined],
  ['GET', (c) => `/v1/campaigns/${c}/messages`, undefined],
  ['GET', (c) => `/v1/campaigns/${c}/context`, undefined],
];

const pathIdCases: Case[] = [
  ...CAMPAIGN_ROUTES.flatMap(([method, path, body]) => [
    bad(`${method} ${path(':cid')} with cid "-bad"`, method, path('-bad'), body, 400, 'INVALID_ID'),
    bad(`${method} ${path(':cid')} with a 129-char cid`, method, path(long(129)), body, 400, 'INVALID_ID'),
    bad(`${method} ${path(':cid')} with an unknown campaign`, method, path('nope'), body, 404, 'CAMPAIGN_NOT_FOUND', {
      absent: 'nope',
    }),
  ]),
  bad('cid with a space', 'GET', '/v1/campaigns/a%20b', undefined, 400, 'INVALID_ID'),
  bad('cid with a non-ASCII letter', 'GET', '/v1/campaigns/%C3%BC', undefined, 400, 'INVALID_ID'),
  bad('cid with a slash', 'GET', '/v1/campaigns/a%2Fb', undefined, 400, 'INVALID_ID'),
  bad('cid starting with a dot', 'GET', '/v1/campaigns/.hidden', undefined, 400, 'INVALID_ID'),
  bad('malformed percent-encoding', 'GET', '/v1/campaigns/%zz', undefined, 400, 'INVALID_URL'),
  bad('a 1001-char path parameter', 'GET', `/v1/campaigns/${long(1001)}`, undefined, 414, 'URI_TOO_LONG'),
  bad('location id "-bad"', 'PUT', `${C}/locations/-bad`, { name: 'X' }, 400, 'INVALID_ID'),
  bad('location id of 129 chars', 'PUT', `${C}/locations/${long(129)}`, { name: 'X' }, 400, 'INVALID_ID'),
  bad('NPC id "-bad"', 'PUT', `${C}/npcs/-bad`, { name: 'X' }, 400, 'INVALID_ID'),
  bad('NPC id of 129 chars', 'PUT', `${C}/npcs/${long(129)}`, { name: 'X' }, 400, 'INVALID_ID'),
  bad('quest id "-bad"', 'PUT', `${C}/quests/-bad`, { name: 'X', objectives: [] }, 400, 'INVALID_ID'),
  bad('quest id of 129 chars', 'PUT', `${C}/quests/${long(129)}`, { name: 'X', objectives: [] }, 400, 'INVALID_ID'),
];

const createCases: Case[] = [
  invalid('create: empty object', 'POST', '/v1/campaigns', {}),
  invalid('create: no body', 'POST', '/v1/campaigns', undefined),
  invalid('create: empty name', 'POST', '/v1/campaigns', { id: 'val-new', name: '' }, { absent: 'val-new' }),
  invalid('create: blank name', 'POST', '/v1/campaigns', { id: 'val-new', name: '   ' }, { absent: 'val-new' }),
  invalid(
    'create: name of 201 chars',
    'POST',
    '/v1/campaigns',
    { id: 'val-new', name: long(201) },
    { absent: 'val-new' },
  ),
  invalid('create: name is a number', 'POST', '/v1/campaigns', { id: 'val-new', name: 5 }, { absent: 'val-new' }),
  invalid('create: name is null', 'POST', '/v1/campaigns', { id: 'val-new', name: null }, { absent: 'val-new' }),
  invalid('create: id "-bad"', 'POST', '/v1/campaigns', { id: '-bad', name: 'X' }),
  invalid('create: id of 129 chars', 'POST', '/v1/campaigns', { id: long(129), name: 'X' }, { absent: long(128) }),
  invalid('create: id is a number', 'POST', '/v1/campaigns', { id: 5, name: 'X' }),
  invalid(
    'create: unknown field',
    'POST',
    '/v1/campaigns',
    { id: 'val-new', name: 'X', color: 'red' },
    { absent: 'val-new' },
  ),
  invalid(
    'create: perRoleMemory is a string',
    'POST',
    '/v1/campaigns',
    { id: 'val-new', name: 'X', perRoleMemory: 'yes' },
    { absent: 'val-new' },
  ),
  invalid('create: body is an array', 'POST', '/v1/campaigns', '[]'),
  invalid('create: body is null', 'POST', '/v1/campaigns', 'null'),
  invalid('create: body is a string', 'POST', '/v1/campaigns', '"val-new"'),
  bad('create: malformed JSON', 'POST', '/v1/campaigns', '{"id": "val-new", "name": ', 400, 'INVALID_JSON', {
    absent: 'val-new',
  }),
  // §8: an empty JSON body is read as {} — and {} is no campaign.
  invalid('create: empty JSON body', 'POST', '/v1/campaigns', ''),
  bad(
    'create: prototype pollution attempt',
    'POST',
    '/v1/campaigns',
    '{"id": "val-new", "name": "X", "__proto__": {"admin": true}}',
    400,
    'INVALID_JSON',
    { absent: 'val-new' },
  ),
  bad('create: duplicate campaign id', 'POST', '/v1/campaigns', { id: CID, name: 'Again' }, 409, 'CAMPAIGN_EXISTS'),
];

const putCases: Case[] = [
  invalid('location: empty object', 'PUT', `${C}/locations/crypt`, {}),
  invalid('location: empty name', 'PUT', `${C}/locations/crypt`, { name: '' }),
  invalid('location: name of 201 chars', 'PUT', `${C}/locations/crypt`, { name: long(201) }),
  invalid('location: name is a number', 'PUT', `${C}/locations/crypt`, { name: 7 }),
  invalid('location: unknown dangerLevel', 'PUT', `${C}/locations/crypt`, { name: 'Crypt', dangerLevel: 'DEADLY' }),
  invalid('location: lower-case dangerLevel', 'PUT', `${C}/locations/crypt`, { name: 'Crypt', dangerLevel: 'safe' }),
  invalid('location: dangerLevel is a number', 'PUT', `${C}/locations/crypt`, { name: 'Crypt', dangerLevel: 3 }),
  invalid('location: unknown field', 'PUT', `${C}/locations/crypt`, { name: 'Crypt', size: 'big' }),
  invalid('location: body is an array', 'PUT', `${C}/locations/crypt`, '[{"name": "Crypt"}]'),
  invalid('npc: empty object', 'PUT', `${C}/npcs/eli`, {}),
  invalid('npc: blank name', 'PUT', `${C}/npcs/eli`, { name: ' ' }),
  invalid('npc: aliases is a string', 'PUT', `${C}/npcs/eli`, { name: 'Eli', aliases: 'Smith' }),
  invalid('npc: empty alias', 'PUT', `${C}/npcs/eli`, { name: 'Eli', aliases: [''] }),
  invalid('npc: alias of 101 chars', 'PUT', `${C}/npcs/eli`, { name: 'Eli', aliases: [long(101)] }),
  invalid('npc: 21 aliases', 'PUT', `${C}/npcs/eli`, {
    name: 'Eli',
    aliases: Array.from({ length: 21 }, (_, i) => `a${i}`),
  }),
  invalid('npc: alias is a number', 'PUT', `${C}/npcs/eli`, { name: 'Eli', aliases: [5] }),
  invalid('npc: locationId "-bad"', 'PUT', `${C}/npcs/eli`, { name: 'Eli', locationId: '-bad' }),
  invalid('npc: locationId of 129 chars', 'PUT', `${C}/npcs/eli`, { name: 'Eli', locationId: long(129) }),
  invalid('npc: locationId is a number', 'PUT', `${C}/npcs/eli`, { name: 'Eli', locationId: 5 }),
  invalid('npc: unknown field', 'PUT', `${C}/npcs/eli`, { name: 'Eli', mood: 'grumpy' }),
  bad('npc: unknown location', 'PUT', `${C}/npcs/eli`, { name: 'Eli', locationId: 'moon' }, 404, 'LOCATION_NOT_FOUND'),
  bad(
    'npc: moving a known NPC to an unknown location',
    'PUT',
    `${C}/npcs/mira`,
    { name: 'Mira', locationId: 'moon' },
    404,
    'LOCATION_NOT_FOUND',
  ),
  invalid('quest: empty object', 'PUT', `${C}/quests/q2`, {}),
  invalid('quest: objectives missing', 'PUT', `${C}/quests/q2`, { name: 'Q2' }),
  invalid('quest: objectives is a string', 'PUT', `${C}/quests/q2`, { name: 'Q2', objectives: 'x' }),
  invalid('quest: 101 objectives', 'PUT', `${C}/quests/q2`, {
    name: 'Q2',
    objectives: Array.from({ length: 101 }, (_, i) => ({ id: `o${i}`, name: 'O' })),
  }),
  invalid('quest: objective without id', 'PUT', `${C}/quests/q2`, { name: 'Q2', objectives: [{ name: 'O' }] }),
  invalid('quest: objective id "-bad"', 'PUT', `${C}/quests/q2`, {
    name: 'Q2',
    objectives: [{ id: '-bad', name: 'O' }],
  }),
  invalid('quest: objective id of 129 chars', 'PUT', `${C}/quests/q2`, {
    name: 'Q2',
    objectives: [{ id: long(129), name: 'O' }],
  }),
  invalid('quest: objective without name', 'PUT', `${C}/quests/q2`, { name: 'Q2', objectives: [{ id: 'o1' }] }),
  invalid('quest: objective with empty name', 'PUT', `${C}/quests/q2`, {
    name: 'Q2',
    objectives: [{ id: 'o1', name: '' }],
  }),
  invalid('quest: objective with unknown field', 'PUT', `${C}/quests/q2`, {
    name: 'Q2',
    objectives: [{ id: 'o1', name: 'O', done: true }],
  }),
  invalid('quest: unknown field', 'PUT', `${C}/quests/q2`, { name: 'Q2', objectives: [], reward: 5 }),
  bad(
    'quest: duplicate objective ids',
    'PUT',
    `${C}/quests/q2`,
    {
      name: 'Q2',
      objectives: [
        { id: 'o1', name: 'A' },
        { id: 'o1', name: 'B' },
      ],
    },
    400,
    'DUPLICATE_OBJECTIVE_ID',
  ),
  invalid('settings: empty object', 'PUT', `${C}/settings`, {}),
  invalid('settings: perRoleMemory is a string', 'PUT', `${C}/settings`, { perRoleMemory: 'true' }),
  invalid('settings: unknown field', 'PUT', `${C}/settings`, { perRoleMemory: true, theme: 'dark' }),
];

const M = `${C}/messages`;
const messageCases: Case[] = [
  invalid('messages: empty object', 'POST', M, {}),
  invalid('messages: no body', 'POST', M, undefined),
  invalid('messages: 0 messages', 'POST', M, say()),
  invalid('messages: 501 messages', 'POST', M, say(...Array.from({ length: 501 }, () => msg()))),
  invalid('messages: messages is a string', 'POST', M, { messages: 'hello' }),
  invalid('messages: a null message', 'POST', M, say(null)),
  invalid('messages: unknown top-level field', 'POST', M, { messages: [msg()], round: 2 }),
  invalid('message: role missing', 'POST', M, say({ content: 'x' })),
  invalid('message: unknown role', 'POST', M, say(msg({ role: 'wizard' }))),
  invalid('message: role is a number', 'POST', M, say(msg({ role: 1 }))),
  invalid('message: content missing', 'POST', M, say({ role: 'player' })),
  invalid('message: content of 16,001 chars', 'POST', M, say(msg({ content: long(16_001) }))),
  invalid('message: empty content', 'POST', M, say(msg({ content: '' }))),
  invalid('message: blank content', 'POST', M, say(msg({ content: ' \n\t ' }))),
  invalid('message: content is a number', 'POST', M, say(msg({ content: 42 }))),
  invalid('message: content is an object', 'POST', M, say(msg({ content: { text: 'x' } }))),
  invalid('message: empty speaker', 'POST', M, say(msg({ speaker: '' }))),
  invalid('message: speaker of 201 chars', 'POST', M, say(msg({ speaker: long(201) }))),
  invalid('message: speaker is a number', 'POST', M, say(msg({ speaker: 5 }))),
  invalid('message: locationId "-bad"', 'POST', M, say(msg({ locationId: '-bad' }))),
  invalid('message: locationId of 129 chars', 'POST', M, say(msg({ locationId: long(129) }))),
  invalid('message: npcIds is a string', 'POST', M, say(msg({ npcIds: 'mira' }))),
  invalid('message: npcIds entry "-bad"', 'POST', M, say(msg({ npcIds: ['-bad'] }))),
  invalid('message: 101 npcIds', 'POST', M, say(msg({ npcIds: Array.from({ length: 101 }, () => 'mira') }))),
  invalid('message: at is not a date', 'POST', M, say(msg({ at: 'yesterday' }))),
  invalid('message: at is a bare number', 'POST', M, say(msg({ at: '1' }))),
  invalid('message: at is a month name', 'POST', M, say(msg({ at: 'March 7, 2026' }))),
  invalid('message: at of 41 chars', 'POST', M, say(msg({ at: `2026-01-01T00:00:00.000000000+00:00${long(6, ' ')}` }))),
  invalid('message: at is a number', 'POST', M, say(msg({ at: 1767225600000 }))),
  invalid('message: unknown visibility', 'POST', M, say(msg({ visibility: 'secret' }))),
  invalid('message: audience without private visibility', 'POST', M, say(msg({ audience: ['mira'] }))),
  invalid('message: audience entry "-bad"', 'POST', M, say(msg({ visibility: 'private', audience: ['-bad'] }))),
  bad('message: private without audience', 'POST', M, say(msg({ visibility: 'private' })), 400, 'AUDIENCE_REQUIRED'),
  invalid(
    'message: toolCalls on a player message',
    'POST',
    M,
    say(msg({ toolCalls: [{ id: 'c9', name: 'get_status' }] })),
  ),
  invalid('message: toolCallId on a player message', 'POST', M, say(msg({ toolCallId: 'call-1' }))),
  invalid('message: tool message without toolCallId', 'POST', M, say({ role: 'tool', content: '{}' })),
  invalid(
    'message: tool call with id "-bad"',
    'POST',
    M,
    say({ role: 'assistant', content: '', toolCalls: [{ id: '-bad', name: 'x' }] }),
  ),
  invalid(
    'message: tool call without name',
    'POST',
    M,
    say({ role: 'assistant', content: '', toolCalls: [{ id: 'c9' }] }),
  ),
  invalid(
    'message: 65 tool calls',
    'POST',
    M,
    say({
      role: 'assistant',
      content: '',
      toolCalls: Array.from({ length: 65 }, (_, i) => ({ id: `c${i}`, name: 'x' })),
    }),
  ),
  invalid(
    'message: reasoning of 16,001 chars',
    'POST',
    M,
    say({ role: 'assistant', content: 'x', reasoning: long(16_001) }),
  ),
  invalid('message: unknown field', 'POST', M, say(msg({ mood: 'happy' }))),
  invalid('message: second message invalid, first valid', 'POST', M, say(msg(), msg({ role: 'wizard' }))),
  bad(
    'message: unknown locationId refuses the whole batch',
    'POST',
    M,
    say(msg({ content: 'valid first' }), msg({ locationId: 'moon' })),
    404,
    'LOCATION_NOT_FOUND',
  ),
  bad(
    'message: unknown npcIds entry refuses the whole batch',
    'POST',
    M,
    say(msg({ content: 'valid first' }), msg({ npcIds: ['mira', 'ghost'] })),
    404,
    'NPC_NOT_FOUND',
  ),
  bad(
    'message: unknown audience member',
    'POST',
    M,
    say(msg({ content: 'valid first' }), msg({ visibility: 'private', audience: ['ghost'] })),
    404,
    'AUDIENCE_NOT_FOUND',
  ),
  bad(
    'message: tool result naming no earlier call',
    'POST',
    M,
    say(msg({ content: 'valid first' }), { role: 'tool', content: '{}', toolCallId: 'never-made' }),
    404,
    'TOOL_CALL_NOT_FOUND',
  ),
  bad(
    'messages: body over 1 MiB',
    'POST',
    M,
    say(...Array.from({ length: 70 }, () => msg({ content: long(16_000) }))),
    413,
    'BODY_TOO_LARGE',
  ),
  bad('messages: malformed JSON', 'POST', M, '{"messages": [{"role": "player", "content": "x"}', 400, 'INVALID_JSON'),
  invalid('messages: empty JSON body (read as {})', 'POST', M, ''),
  bad('messages: text/plain body', 'POST', M, 'hello', 415, 'UNSUPPORTED_MEDIA_TYPE', {
    headers: { 'content-type': 'text/plain' },
  }),
];

const K = `${C}/commands`;
const commandCases: Case[] = [
  invalid('change-location: empty object', 'POST', `${K}/change-location`, {}),
  invalid('change-location: no body', 'POST', `${K}/change-location`, undefined),
  invalid('change-location: toLocationId "-bad"', 'POST', `${K}/change-location`, { toLocationId: '-bad' }),
  invalid('change-location: toLocationId of 129 chars', 'POST', `${K}/change-location`, { toLocationId: long(129) }),
  invalid('change-location: toLocationId is a number', 'POST', `${K}/change-location`, { toLocationId: 5 }),
  invalid('change-location: unknown field', 'POST', `${K}/change-location`, { toLocationId: 'docks', fast: true }),
  bad(
    'change-location: unknown location',
    'POST',
    `${K}/change-location`,
    { toLocationId: 'moon' },
    404,
    'LOCATION_NOT_FOUND',
  ),
  bad(
    'change-location: already there',
    'POST',
    `${K}/change-location`,
    { toLocationId: 'tavern' },
    409,
    'ALREADY_THERE',
  ),
  invalid('complete-objective: empty object', 'POST', `${K}/complete-objective`, {}),
  invalid('complete-objective: objectiveId missing', 'POST', `${K}/complete-objective`, { questId: 'relic' }),
  invalid('complete-objective: questId "-bad"', 'POST', `${K}/complete-objective`, {
    questId: '-bad',
    objectiveId: 'map',
  }),
  bad(
    'complete-objective: unknown quest',
    'POST',
    `${K}/complete-objective`,
    { questId: 'nope', objectiveId: 'map' },
    404,
    'QUEST_NOT_FOUND',
  ),
  bad(
    'complete-objective: unknown objective',
    'POST',
    `${K}/complete-objective`,
    { questId: 'relic', objectiveId: 'nope' },
    404,
    'OBJECTIVE_NOT_FOUND',
  ),
  bad(
    'complete-objective: already completed',
    'POST',
    `${K}/complete-objective`,
    { questId: 'relic', objectiveId: 'map' },
    409,
    'OBJECTIVE_ALREADY_COMPLETED',
  ),
  invalid('complete-quest: empty object', 'POST', `${K}/complete-quest`, {}),
  invalid('complete-quest: questId of 129 chars', 'POST', `${K}/complete-quest`, { questId: long(129) }),
  bad('complete-quest: unknown quest', 'POST', `${K}/complete-quest`, { questId: 'nope' }, 404, 'QUEST_NOT_FOUND'),
  bad(
    'complete-quest: already completed',
    'POST',
    `${K}/complete-quest`,
    { questId: 'done' },
    409,
    'QUEST_ALREADY_COMPLETED',
  ),
  invalid('progress-act: empty object', 'POST', `${K}/progress-act`, {}),
  invalid('progress-act: actId "-bad"', 'POST', `${K}/progress-act`, { actId: '-bad' }),
  bad('progress-act: the current act', 'POST', `${K}/progress-act`, { actId: 'act-1' }, 409, 'ALREADY_IN_ACT'),
  invalid('update-location-state: empty object', 'POST', `${K}/update-location-state`, {}),
  invalid('update-location-state: unknown dangerLevel', 'POST', `${K}/update-location-state`, {
    locationId: 'tavern',
    dangerLevel: 'DEADLY',
  }),
  invalid('update-location-state: completeEncounter "-bad"', 'POST', `${K}/update-location-state`, {
    locationId: 'tavern',
    completeEncounter: '-bad',
  }),
  invalid('update-location-state: unknown field', 'POST', `${K}/update-location-state`, {
    locationId: 'tavern',
    dangerLevel: 'LOW',
    note: 'x',
  }),
  bad(
    'update-location-state: nothing to update',
    'POST',
    `${K}/update-location-state`,
    { locationId: 'tavern' },
    400,
    'NOTHING_TO_UPDATE',
  ),
  bad(
    'update-location-state: unknown location',
    'POST',
    `${K}/update-location-state`,
    { locationId: 'moon', dangerLevel: 'LOW' },
    404,
    'LOCATION_NOT_FOUND',
  ),
  bad(
    'update-location-state: danger level unchanged',
    'POST',
    `${K}/update-location-state`,
    { locationId: 'tavern', dangerLevel: 'SAFE' },
    409,
    'DANGER_LEVEL_UNCHANGED',
  ),
  bad(
    'update-location-state: encounter already completed',
    'POST',
    `${K}/update-location-state`,
    { locationId: 'tavern', completeEncounter: 'brawl' },
    409,
    'ENCOUNTER_ALREADY_COMPLETED',
  ),
  invalid('end-round: a field in the body', 'POST', `${K}/end-round`, { round: 3 }),
  bad('an unknown command', 'POST', `${K}/teleport`, { toLocationId: 'docks' }, 404, 'ROUTE_NOT_FOUND'),
];

const headerCases: Case[] = [
  ...['abc', '1.5', '-1', '*', '', '1234567890', '"7', '7"', 'W/7"', '1, 2', '1:', ':5', '1:2:3', '"1":2'].map(
    (value) =>
      bad(`If-Match ${JSON.stringify(value)}`, 'POST', M, say(msg()), 400, 'INVALID_IF_MATCH', {
        headers: { 'if-match': value },
      }),
  ),
  bad('If-Match on a command', 'POST', `${K}/change-location`, { toLocationId: 'docks' }, 400, 'INVALID_IF_MATCH', {
    headers: { 'if-match': 'v1' },
  }),
  bad('If-Match stale', 'POST', M, say(msg()), 412, 'VERSION_MISMATCH', { headers: { 'if-match': '1' } }),
  // `<timeline>:<version>` (DESIGN §10): another timeline is 412 whatever the version.
  bad('If-Match of another timeline', 'POST', M, say(msg()), 412, 'VERSION_MISMATCH', {
    headers: { 'if-match': '"2:1"' },
  }),
  bad('If-Match ahead', 'POST', `${K}/change-location`, { toLocationId: 'docks' }, 412, 'VERSION_MISMATCH', {
    headers: { 'if-match': '999999' },
  }),
  ...['', long(201), 'has space', 'k\u00e9y', 'tab\tkey'].map((value) =>
    bad(
      `Idempotency-Key ${JSON.stringify(value.length > 20 ? `${value.slice(0, 10)}… (${value.length})` : value)}`,
      'POST',
      M,
      say(msg()),
      400,
      'INVALID_IDEMPOTENCY_KEY',
      { headers: { 'idempotency-key': value } },
    ),
  ),
  bad('Idempotency-Key on a PUT', 'PUT', `${C}/locations/crypt`, { name: 'Crypt' }, 400, 'INVALID_IDEMPOTENCY_KEY', {
    headers: { 'idempotency-key': '' },
  }),
  bad(
    'Idempotency-Key reused with another body',
    'POST',
    M,
    say(msg({ content: 'different' })),
    422,
    'IDEMPOTENCY_KEY_REUSED',
    { headers: { 'idempotency-key': 'used-key' } },
  ),
  bad(
    'Idempotency-Key reused on another route',
    'POST',
    `${K}/change-location`,
    { toLocationId: 'docks' },
    422,
    'IDEMPOTENCY_KEY_REUSED',
    { headers: { 'idempotency-key': 'used-key' } },
  ),
];

const q = (path: string, query: string, name: string): Case =>
  invalid(
    `GET ${path.replace(C, '')}?${query.length > 40 ? `${query.slice(0, 40)}…` : query} (${name})`,
    'GET',
    `${path}?${query}`,
    undefined,
  );
const queryCases: Case[] = [
  q(`${C}/memories`, 'scope=item', 'unknown scope'),
  q(`${C}/memories`, 'subjectId=-bad', 'bad subjectId'),
  q(`${C}/memories`, 'limit=0', 'limit below 1'),
  q(`${C}/memories`, 'limit=1001', 'limit above 1000'),
  q(`${C}/memories`, 'limit=abc', 'limit not a number'),
  q(`${C}/memories`, 'limit=1.5', 'limit not an integer'),
  q(`${C}/memories`, 'limit=', 'empty limit'),
  q(`${C}/memories`, 'limit=1&limit=2', 'limit repeated'),
  q(`${C}/memories`, 'before=', 'empty before'),
  q(`${C}/memories`, `before=${long(301)}`, 'before of 301 chars'),
  q(`${C}/memories`, 'sort=asc', 'unknown parameter'),
  q(`${C}/events`, 'stream=all', 'unknown stream'),
  q(`${C}/events`, 'after=-1', 'negative after'),
  q(`${C}/events`, 'after=x', 'after not a number'),
  q(`${C}/events`, 'after=99999999999', 'after too large'),
  q(`${C}/events`, 'limit=0', 'limit below 1'),
  q(`${C}/events`, 'limit=1001', 'limit above 1000'),
  q(`${C}/events`, 'type=MessageRecorded', 'unknown parameter'),
  q(`${C}/messages`, 'after=-2', 'after below -1'),
  q(`${C}/messages`, 'after=x', 'after not a number'),
  q(`${C}/messages`, 'limit=0', 'limit below 1'),
  q(`${C}/messages`, 'limit=1001', 'limit above 1000'),
  q(`${C}/messages`, 'locationId=-bad', 'bad locationId'),
  q(`${C}/messages`, `locationId=${long(129)}`, 'locationId of 129 chars'),
  q(`${C}/messages`, 'role=player', 'unknown parameter'),
  q(`${C}/context`, 'agent=wizard', 'unknown agent'),
  q(`${C}/context`, 'limit=0', 'limit below 1'),
  q(`${C}/context`, 'limit=101', 'limit above 100'),
  q(`${C}/context`, 'format=xml', 'unknown format'),
  q(`${C}/context`, 'minVersion=-1', 'negative minVersion'),
  q(`${C}/context`, 'minVersion=x', 'minVersion not a number'),
  q(`${C}/context`, 'minVersion=1&waitMs=30001', 'waitMs above 30000'),
  q(`${C}/context`, 'waitMs=-1', 'negative waitMs'),
  q(`${C}/context`, 'explain=maybe', 'explain not a boolean'),
  q(`${C}/context`, 'viewer=-bad', 'bad viewer'),
  q(`${C}/context`, 'query=', 'empty query'),
  q(`${C}/context`, `query=${long(2001)}`, 'query of 2001 chars'),
  q(`${C}/context`, 'digestVersion=abc', 'digestVersion not a SHA-256'),
  q(`${C}/context`, 'color=red', 'unknown parameter'),
  ...['49', '200001', 'abc', '', '1e3', '-100'].map((v) =>
    bad(`GET /context?budget=${v}`, 'GET', `${C}/context?budget=${v}`, undefined, 400, 'INVALID_BUDGET'),
  ),
  ...['bogus', 'location,bogus', '', ',', 'LOCATION'].map((v) =>
    bad(
      `GET /context?include=${v}`,
      'GET',
      `${C}/context?include=${encodeURIComponent(v)}`,
      undefined,
      400,
      'INVALID_INCLUDE',
    ),
  ),
];

const routeCases: Case[] = [
  bad('unknown route', 'GET', '/v1/nope', undefined, 404, 'ROUTE_NOT_FOUND'),
  bad('unknown sub-resource', 'GET', `${C}/nope`, undefined, 404, 'ROUTE_NOT_FOUND'),
  // DELETE on a campaign is a route since DESIGN §10 (it deletes it): PATCH is the unsupported method.
  bad('unsupported method on a campaign', 'PATCH', C, { name: 'x' }, 404, 'ROUTE_NOT_FOUND'),
  bad('POST on a campaign', 'POST', C, { name: 'x' }, 404, 'ROUTE_NOT_FOUND'),
  bad('PATCH on a location', 'PATCH', `${C}/locations/tavern`, { name: 'x' }, 404, 'ROUTE_NOT_FOUND'),
  bad('GET on a command', 'GET', `${K}/change-location`, undefined, 404, 'ROUTE_NOT_FOUND'),
  bad('no version prefix', 'GET', `/campaigns/${CID}`, undefined, 404, 'ROUTE_NOT_FOUND'),
];

describe('validation: bad input is a 4xx problem+json with a code, and appends nothing (DESIGN §3)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    const s = scenario(t, CID);
    await s.create('Validation');
    await s.location('tavern', 'Rusty Anchor', 'SAFE');
    await s.location('docks', 'Docks');
    await s.npc('mira', 'Mira', 'tavern', ['the barkeep']);
    await s.quest('relic', 'Find the Relic', [
      { id: 'map', name: 'Buy the map' },
      { id: 'crypt', name: 'Enter the crypt' },
    ]);
    await s.quest('done', 'Done already', []);
    await s.move('tavern');
    await s.command('complete-objective', { questId: 'relic', objectiveId: 'map' });
    await s.command('complete-quest', { questId: 'done' });
    await s.command('progress-act', { actId: 'act-1' });
    await s.command('update-location-state', { locationId: 'tavern', completeEncounter: 'brawl' });
    await s.say(
      { role: 'assistant', content: '', toolCalls: [{ id: 'call-1', name: 'get_status' }] },
      { role: 'tool', content: '{"hp": 3}', toolCallId: 'call-1' },
    );
    const used = await t.http('POST', M, say(msg({ content: 'first use of the key' })), {
      'idempotency-key': 'used-key',
    });
    expect(used.status).toBe(201);
    await s.settled();
  });
  afterAll(async () => t.close());

  const campaign = async () => (await t.http('GET', C)).body;

  async function expectRefused(c: Case) {
    const before = await campaign();
    const res = await t.http(c.method, c.path, c.body, c.headers);
    expect({ status: res.status, code: res.body?.code }).toEqual({ status: c.status, code: c.code });
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toEqual({
      type: expect.any(String),
      title: expect.any(String),
      status: c.status,
      detail: expect.any(String),
      code: c.code,
      ...(res.body.errors ? { errors: expect.any(Array) } : {}),
    });
    // The campaign (version = its game stream, messageCount, cursors, processedVersion) did not move, and no event
    // follows that version.
    const [after, appended] = await Promise.all([campaign(), t.http('GET', `${C}/events?after=${before.version}`)]);
    expect(after).toEqual(before);
    expect(appended.body.items).toEqual([]);
    if (c.absent) expect((await t.http('GET', `/v1/campaigns/${c.absent}`)).status).toBe(404);
  }

  // Refused requests change nothing, so they can run side by side; each still checks the campaign before and after.
  describe('path ids and unknown campaigns', () => {
    it.concurrent.each(pathIdCases)('$name → $status $code', expectRefused);
  });
  describe('POST /v1/campaigns', () => {
    it.concurrent.each(createCases)('$name → $status $code', expectRefused);
  });
  describe('PUT locations, NPCs, quests, settings', () => {
    it.concurrent.each(putCases)('$name → $status $code', expectRefused);
  });
  describe('POST messages', () => {
    it.concurrent.each(messageCases)('$name → $status $code', expectRefused);
  });
  describe('commands', () => {
    it.concurrent.each(commandCases)('$name → $status $code', expectRefused);
  });
  describe('If-Match and Idempotency-Key headers', () => {
    it.concurrent.each(headerCases)('$name → $status $code', expectRefused);
  });
  describe('query parameters', () => {
    it.concurrent.each(queryCases)('$name → $status $code', expectRefused);
  });
  describe('routes', () => {
    it.concurrent.each(routeCases)('$name → $status $code', expectRefused);
  });

  it('validation errors list each problem with its path', async () => {
    const res = await t.http('POST', M, say(msg({ role: 'wizard', content: 5 })));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'messages.0.role' }),
        expect.objectContaining({ path: 'messages.0.content' }),
      ]),
    );
  });

  describe('the limits themselves are accepted (boundaries)', () => {
    const ok = async (method: string, path: string, body?: unknown, status = 200) => {
      const res = await t.http(method, path, body);
      expect({ status: res.status, body: res.body }).toEqual({ status, body: expect.anything() });
      return res.body;
    };

    it('1 and 500 messages per post, content of 16,000 characters, ISO times with and without a zone', async () => {
      expect((await ok('POST', M, say(msg()), 201)).indexes).toHaveLength(1);
      expect(
        (await ok('POST', M, say(...Array.from({ length: 500 }, (_, i) => msg({ content: `m${i}` }))), 201)).indexes,
      ).toHaveLength(500);
      await ok(
        'POST',
        M,
        say(
          msg({ content: long(16_000) }),
          msg({ at: '1042-05-01' }),
          msg({ at: '2026-03-01 10:15' }),
          msg({ at: '2026-03-01T10:15:00.123+02:00' }),
        ),
        201,
      );
    });

    it('ids of 128 characters in the path and the body', async () => {
      const id = long(128, 'z');
      await ok('PUT', `${C}/locations/${id}`, { name: long(200) });
      await ok('PUT', `${C}/npcs/${id}`, {
        name: 'Z',
        locationId: id,
        aliases: Array.from({ length: 20 }, (_, i) => `${long(99)}${i % 10}`),
      });
      await ok('PUT', `${C}/quests/${id}`, {
        name: 'Q',
        objectives: Array.from({ length: 100 }, (_, i) => ({ id: `${i}`, name: 'O' })),
      });
      await ok('POST', `${K}/change-location`, { toLocationId: id }, 202);
      await ok('POST', M, say(msg({ npcIds: [id] })), 201);
      await ok('POST', '/v1/campaigns', { id: long(128, 'c'), name: 'Long id' }, 201);
      await ok('GET', `/v1/campaigns/${long(128, 'c')}`);
    });

    it('query limits at their bounds', async () => {
      await ok('GET', `${C}/memories?limit=1000`);
      await ok('GET', `${C}/events?limit=1000&after=0`);
      await ok('GET', `${C}/messages?limit=1000&after=-1`);
      await ok('GET', `${C}/context?limit=100&minVersion=0&waitMs=30000`);
      await ok('GET', `${C}/context?budget=50`);
      await ok('GET', `${C}/context?budget=200000&include=location,npc,world`);
    });
  });
});
