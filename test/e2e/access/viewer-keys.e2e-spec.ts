import { expectProblem } from '../../support/rejection';
import { startTestApp, TestApp } from '../../support/test-app';

const ADMIN = 'admin-token-0123456789abcdef';
const ARIA = 'aria-token-0123456789abcdef';
const MIRA = 'mira-token-0123456789abcdef';
const KEYS = `${ADMIN}, ${ARIA}=keep*@player:aria, ${MIRA}=keep@npc:mira`;
const as = (token: string) => ({ authorization: `Bearer ${token}` });

jest.setTimeout(60_000);

/**
 * Issue 18 finding 4: a key handed to a player's agent read agent=dm, the bible's dmOnly part, raw /messages,
 * /events and /search, which return dm-only notes and whispers. A viewer-bound key reads as its character only.
 */
describe('viewer-bound keys (token=<glob>@player:<id> / @npc:<id>)', () => {
  let t: TestApp;
  const cid = 'keep';
  const admin = (method: string, path: string, body?: unknown) =>
    t.http(method, `/v1/campaigns/${cid}${path}`, body, as(ADMIN));
  const read = (token: string, path: string) => t.http('GET', `/v1/campaigns/${cid}${path}`, undefined, as(token));

  beforeAll(async () => {
    t = await startTestApp({ env: { LOREKEEPER_API_KEYS: KEYS } });
    expect((await t.http('POST', '/v1/campaigns', { id: cid, name: 'Keep' }, as(ADMIN))).status).toBe(201);
    for (const [path, body] of [
      ['/locations/hall', { name: 'Hall' }],
      ['/locations/vault', { name: 'Vault' }],
      ['/players/aria', { name: 'Aria' }],
      ['/npcs/mira', { name: 'Mira', locationId: 'hall' }],
    ] as const) {
      expect((await admin('PUT', path, body)).status).toBe(200);
    }
    expect((await admin('POST', '/commands/change-location', { toLocationId: 'hall' })).status).toBe(202);
    expect(
      (
        await admin('PUT', '/bible', {
          text: 'The keep guards the Emberstone.',
          dmOnly: 'Mira is the traitor Quillon.',
        })
      ).status,
    ).toBe(200);
    const said = await admin('POST', '/messages', {
      messages: [
        { role: 'player', speaker: 'Aria', content: 'Aria asks about the lanternlight festival.' },
        {
          role: 'npc',
          speaker: 'Mira',
          content: 'Mira whispers the password marrowgate.',
          visibility: 'private',
          audience: ['mira'],
        },
        { role: 'dm', content: 'The dm notes the hidden assassin Vexhollow.', visibility: 'dm' },
        { role: 'assistant', content: 'Thinking done.', reasoning: 'reasoning about Vexhollow privately' },
      ],
    });
    expect(said.status).toBe(201);
  });
  afterAll(async () => t.close());

  const text = (res: { text: string }) => res.text;

  it('serves the context as the bound character, with or without naming it', async () => {
    for (const path of [
      '/context?format=text',
      '/context?agent=player&viewer=aria&format=text',
      '/context?agent=player&format=text',
    ]) {
      const res = await read(ARIA, path);
      expect(res.status).toBe(200);
      expect(text(res)).toContain('lanternlight');
      expect(text(res)).toContain('Emberstone');
      for (const secret of ['marrowgate', 'Vexhollow', 'Quillon']) expect(text(res)).not.toContain(secret);
    }
    const npc = await read(MIRA, '/context?format=text');
    expect(npc.status).toBe(200);
    expect(text(npc)).toContain('marrowgate');
    for (const secret of ['Vexhollow', 'Quillon']) expect(text(npc)).not.toContain(secret);
  });

  it.each([
    ['agent=dm', '/context?agent=dm'],
    ['the narrative view', '/context?agent=narrative'],
    ['the tool-agent view', '/context?agent=agent'],
    ['another viewer', '/context?agent=player&viewer=bob'],
    ['the npc preset', '/context?agent=npc&viewer=mira'],
    ['the event log', '/events'],
    ['the memory stream', '/events?stream=memory'],
    ['the live stream', '/stream'],
    ['usage', '/usage'],
    ['reasoning search', '/search?q=Vexhollow&in=reasoning'],
  ])('refuses %s with 403 VIEWER_BOUND', async (_label, path) => {
    expectProblem(await read(ARIA, path), 403, 'VIEWER_BOUND');
  });

  it('is read-only: every write is 403 VIEWER_BOUND and appends nothing', async () => {
    const before = (await admin('GET', '')).body.version;
    expectProblem(
      await t.http('POST', `/v1/campaigns/${cid}/messages`, { messages: [{ role: 'player', content: 'x' }] }, as(ARIA)),
      403,
      'VIEWER_BOUND',
    );
    expectProblem(await t.http('PUT', `/v1/campaigns/${cid}/bible`, { text: 'mine' }, as(ARIA)), 403, 'VIEWER_BOUND');
    expectProblem(
      await t.http('POST', '/v1/broadcasts', { content: 'hi', from: 'aria' }, as(ARIA)),
      403,
      'VIEWER_BOUND',
    );
    expectProblem(await t.http('POST', '/v1/campaigns', { id: 'keep2', name: 'x' }, as(ARIA)), 403, 'VIEWER_BOUND');
    expect((await admin('GET', '')).body.version).toBe(before);
  });

  it('filters messages, memories, glossary, bible and search to what the character witnessed', async () => {
    const messages = await read(ARIA, '/messages');
    expect(messages.status).toBe(200);
    expect(messages.text).toContain('lanternlight');
    for (const secret of ['marrowgate', 'Vexhollow']) expect(messages.text).not.toContain(secret);
    const bible = await read(ARIA, '/bible');
    expect(bible.body).toEqual({ text: 'The keep guards the Emberstone.' });
    expect((await read(ADMIN, '/bible')).body.dmOnly).toBe('Mira is the traitor Quillon.');
    for (const q of ['marrowgate', 'Vexhollow']) expect((await read(ARIA, `/search?q=${q}`)).body.items).toEqual([]);
    expect((await read(ARIA, '/search?q=lanternlight')).body.items).toHaveLength(1);
    expect((await read(MIRA, '/search?q=marrowgate')).body.items).toHaveLength(1);
    expect((await read(ADMIN, '/search?q=Vexhollow')).body.items.length).toBeGreaterThan(0);
    expect((await read(ARIA, '/memories')).status).toBe(200);
    const glossary = await read(ARIA, '/glossary');
    expect(glossary.status).toBe(200);
    expect(glossary.text).not.toContain('Vexhollow');
  });

  it('keeps the campaign scope: a bound key outside its glob sees 404', async () => {
    expect((await t.http('POST', '/v1/campaigns', { id: 'other', name: 'Other' }, as(ADMIN))).status).toBe(201);
    expectProblem(await t.http('GET', '/v1/campaigns/other/context', undefined, as(MIRA)), 404, 'CAMPAIGN_NOT_FOUND');
  });

  it('requires a key for /metrics when keys are set, and not a viewer-bound one', async () => {
    expectProblem(await t.http('GET', '/metrics'), 401, 'UNAUTHORIZED');
    expectProblem(await t.http('GET', '/metrics', undefined, as(ARIA)), 403, 'VIEWER_BOUND');
    const ok = await t.http('GET', '/metrics', undefined, as(ADMIN));
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('# HELP');
    expect((await t.http('GET', '/health')).status).toBe(200);
  });

  /** DESIGN §8: a retracted line leaves a bound key's count and numbering as if it had never been there. */
  it('numbers a bound key’s messages over what survives a retraction; includeRetracted is refused', async () => {
    const said = await admin('POST', '/messages', {
      messages: [
        { role: 'player', speaker: 'Aria', content: 'Aria swipes this line away.' },
        { role: 'player', speaker: 'Aria', content: 'Aria keeps this one.' },
      ],
    });
    expect((await admin('POST', '/messages/retract', { indexes: [said.body.indexes[0]] })).status).toBe(202);
    const items = (await read(ARIA, '/messages')).body.items as { seq: number; content: string }[];
    expect(items.map((m) => m.seq)).toEqual([...items.keys()]);
    expect(items.map((m) => m.content)).toContain('Aria keeps this one.');
    expect(JSON.stringify(items)).not.toContain('swipes');
    expect((await read(ARIA, '')).body.messageCount).toBe(items.length);
    expectProblem(await read(ARIA, '/messages?includeRetracted=true'), 403, 'VIEWER_BOUND');
  });
});
