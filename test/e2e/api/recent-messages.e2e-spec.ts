import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(60_000);

interface Section {
  key: string;
  title: string;
  entries: { ref: string; text: string; createdAt: string; tokens: number }[];
}

const recentOf = (body: { sections: Section[] }) => body.sections.find((s) => s.key === 'recent')!;
const SYSTEM = 'You are the ship AI of the Kestrel. Obey the captain.';

describe('Recent Messages section over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('60 messages → the last 20, oldest first, with the system prompt pinned in front', async () => {
    const s = scenario(t, 'window');
    await s.create();
    await s.say(
      { role: 'system', content: SYSTEM },
      ...Array.from({ length: 59 }, (_, i) => ({
        role: i % 2 ? 'dm' : 'player',
        speaker: i % 2 ? null : 'Aria',
        content: `Line ${i + 1}\n  with a second line`,
      })),
    );
    const res = await s.context('?agent=agent&format=json');
    expect(res.status).toBe(200);
    const recent = recentOf(res.body);
    expect(recent.title).toBe('Recent Messages');
    expect(recent.entries.map((e) => e.ref)).toEqual(['0', ...Array.from({ length: 20 }, (_, i) => String(40 + i))]);
    expect(recent.entries[0].text).toBe(`[0] system: ${SYSTEM}`);
    expect(recent.entries[1].text).toBe('[40] dm: Line 40 with a second line');
    expect(recent.entries[2].text).toBe('[41] Aria: Line 41 with a second line');
    expect(res.body.dropped).toEqual([]);

    const text = await s.context('?include=recent&format=text');
    // §8: a `### round N · <location>` header whenever round or location changes (this campaign has no location).
    expect(text.text).toMatch(
      /^## Recent Messages\n### round 1\n\[0\] system: You are the ship AI[^\n]*\n\[40\] dm: Line 40 with a second line\n/,
    );
    const only = await s.context('?include=recent');
    expect(only.body.sections.map((x: Section) => x.key)).toEqual(['recent']);
  });

  it('does not repeat the system message when it is still inside the window', async () => {
    const s = scenario(t, 'short');
    await s.create();
    await s.say(
      { role: 'system', content: SYSTEM },
      ...Array.from({ length: 9 }, (_, i) => ({ role: 'player', content: `Short ${i}` })),
    );
    const recent = recentOf((await s.context('?include=recent')).body);
    expect(recent.entries.map((e) => e.ref)).toEqual(Array.from({ length: 10 }, (_, i) => String(i)));
  });

  it('keeps only the newest get_ship and get_system results, every other result, and reports the rest as compacted', async () => {
    const s = scenario(t, 'tools');
    await s.create();
    await s.say({ role: 'system', content: SYSTEM }); // 0
    await s.say(
      {
        role: 'assistant',
        content: 'Checking ship and system.',
        toolCalls: [
          { id: 'c1', name: 'get_ship' },
          { id: 'c2', name: 'get_system' },
        ],
      }, // 1
      { role: 'tool', toolCallId: 'c1', content: '{"hull": 100, "fuel": 40}' }, // 2 compacted
      { role: 'tool', toolCallId: 'c2', content: '{"system": "Sol"}' }, // 3 compacted
    );
    await s.say(
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'c3', name: 'get_ship' },
          { id: 'c4', name: 'scan_area' },
        ],
      }, // 4
      { role: 'tool', toolCallId: 'c3', content: '{"hull": 90, "fuel": 35}' }, // 5 kept: newest get_ship
      { role: 'tool', toolCallId: 'c4', content: 'Two asteroids nearby.' }, // 6 kept
    );
    await s.say(
      {
        role: 'assistant',
        content: 'Jumping.',
        toolCalls: [
          { id: 'c5', name: 'get_system' },
          { id: 'c6', name: 'scan_area' },
          { id: 'c7', name: 'inspect_wreck' },
        ],
      }, // 7
      { role: 'tool', toolCallId: 'c5', content: '{"system": "Vega"}' }, // 8 kept: newest get_system
      { role: 'tool', toolCallId: 'c6', content: 'Nothing nearby.' }, // 9 kept: scan_area is no snapshot tool
      // 10 kept: looks like ship state, is not get_ship
      { role: 'tool', toolCallId: 'c7', content: '{"hull": 12, "fuel": 0, "ship": "wreck"}' },
      { role: 'assistant', content: 'Done.' }, // 11
    );
    const res = await s.context('?agent=agent&format=json');
    const recent = recentOf(res.body);
    expect(recent.entries.map((e) => e.ref)).toEqual(['0', '1', '4', '5', '6', '7', '8', '9', '10', '11']);
    expect(res.body.dropped).toEqual([
      { section: 'recent', ref: '2', tokens: expect.any(Number), reason: 'compacted' },
      { section: 'recent', ref: '3', tokens: expect.any(Number), reason: 'compacted' },
    ]);
    expect(res.body.dropped.every((d: { tokens: number }) => d.tokens > 0)).toBe(true);
    const texts = recent.entries.map((e) => e.text);
    expect(texts).toContain('[4] assistant: [calls get_ship#c3, scan_area#c4]');
    expect(texts).toContain('[5] tool get_ship: {"hull": 90, "fuel": 35}');
    expect(texts).toContain('[10] tool inspect_wreck: {"hull": 12, "fuel": 0, "ship": "wreck"}');
  });

  it('the GET messages API returns the agent fields it was given', async () => {
    const res = await t.http('GET', '/v1/campaigns/tools/messages?after=0&limit=2');
    expect(res.body.items).toEqual([
      expect.objectContaining({
        index: 1,
        role: 'assistant',
        content: 'Checking ship and system.',
        toolCalls: [
          { id: 'c1', name: 'get_ship' },
          { id: 'c2', name: 'get_system' },
        ],
        toolCallId: null,
        round: 1,
        visibility: 'public',
      }),
      expect.objectContaining({
        index: 2,
        role: 'tool',
        toolCallId: 'c1',
        toolCalls: [],
        reasoning: null,
        round: 1,
        visibility: 'public',
        audience: [],
      }),
    ]);
    const s = scenario(t, 'fields');
    await s.create();
    await s.npc('vex', 'Vex', null);
    await s.say({
      role: 'assistant',
      content: 'Hm.',
      reasoning: 'Vex is lying.',
      visibility: 'private',
      audience: ['vex'],
    });
    const [m] = (await t.http('GET', '/v1/campaigns/fields/messages')).body.items;
    expect(m).toMatchObject({
      index: 0,
      role: 'assistant',
      reasoning: 'Vex is lying.',
      visibility: 'private',
      audience: ['vex'],
      round: 1,
      toolCalls: [],
      toolCallId: null,
    });
  });
});

describe('Recent Messages with a small window and hot rounds', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { CONTEXT_RECENT_MESSAGES: '4', HOT_ROUNDS: '2' } });
  });
  afterAll(async () => t.close());

  it('resolves a tool result through a call made before the window, and compacts it', async () => {
    const s = scenario(t, 'far');
    await s.create();
    await s.say({ role: 'assistant', content: 'Status please.', toolCalls: [{ id: 'old', name: 'get_status' }] }); // 0
    await s.say(...Array.from({ length: 5 }, (_, i) => ({ role: 'player', content: `Filler ${i}` }))); // 1–5
    await s.say({ role: 'tool', toolCallId: 'old', content: 'status: docked' }); // 6: its call is out of the window
    await s.say(
      { role: 'assistant', content: 'Again.', toolCalls: [{ id: 'new', name: 'get_status' }] },
      { role: 'tool', toolCallId: 'new', content: 'status: flying' },
    ); // 7, 8
    const res = await s.context('?include=recent');
    expect(recentOf(res.body).entries.map((e) => e.ref)).toEqual(['5', '7', '8']);
    expect(res.body.dropped).toEqual([expect.objectContaining({ ref: '6', reason: 'compacted' })]);
  });

  it('once a round has ended, holds the last HOT_ROUNDS rounds (not capped at CONTEXT_RECENT_MESSAGES), system pinned', async () => {
    const s = scenario(t, 'rounds');
    await s.create();
    await s.say({ role: 'system', content: SYSTEM }, { role: 'player', content: 'Round one.' }); // 0, 1
    await s.command('end-round');
    await s.say({ role: 'player', content: 'Round two.' }); // 2
    await s.command('end-round');
    // 3–8
    await s.say(...Array.from({ length: 6 }, (_, i) => ({ role: 'player', content: `Round three, line ${i}.` })));
    const recent = recentOf((await s.context('?include=recent')).body);
    expect(recent.entries.map((e) => e.ref)).toEqual(['0', '2', '3', '4', '5', '6', '7', '8']);
    expect(recent.entries[1].text).toBe('[2] player: Round two.');
    await s.command('end-round');
    await s.command('end-round');
    // Rounds 4 and 5 have no messages yet: the window is empty, the system prompt is still pinned.
    expect(recentOf((await s.context('?include=recent')).body).entries.map((e) => e.ref)).toEqual(['0']);
  });

  it('a relative date in a served message is followed by the story date it names, in Recent and in Recall', async () => {
    const s = scenario(t, 'dates');
    await s.create();
    // Monday 8 May 2023 in the story.
    const at = '2023-05-08T13:56:00.000Z';
    await s.say({ role: 'player', speaker: 'Aria', content: 'I lost the brass compass yesterday.', at }); // 0
    const recent = recentOf((await s.context('?include=recent')).body);
    expect(recent.entries[0].text).toBe('[0] Aria: I lost the brass compass yesterday [7 May 2023].');
    // Two more rounds push round 1 out of the hot rounds: the line comes back through Recall, dated the same way.
    for (const round of [2, 3]) {
      await s.command('end-round');
      await s.say({ role: 'player', speaker: 'Aria', content: `Round ${round}: we sail on.`, at });
    }
    await s.settled();
    const text = (await s.context('?agent=dm&format=text&query=where is the brass compass?')).text;
    expect(text).toContain('Aria: I lost the brass compass yesterday [7 May 2023].');
    expect(text).not.toContain('[0] Aria');
    // The stored message is unchanged.
    const stored = await t.http('GET', '/v1/campaigns/dates/messages');
    expect(JSON.stringify(stored.body)).toContain('"I lost the brass compass yesterday."');
  });

  it('a campaign with no messages has an empty section', async () => {
    const s = scenario(t, 'empty');
    await s.create();
    const res = await s.context('?include=recent');
    expect(recentOf(res.body).entries).toEqual([]);
    expect((await s.context('?include=recent&format=text')).text).toMatch(
      /^<!-- context: \d+\/4000 tokens; dropped 0 -->\n$/,
    );
  });
});
