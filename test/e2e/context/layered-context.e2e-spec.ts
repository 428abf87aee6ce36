import { rebuildProjections } from '../../../scripts/rebuild-projections';
import { scenario } from '../../support/scenario';
import { startTestApp, tempDb, TestApp } from '../../support/test-app';

const BIBLE = {
  text: 'The Saga of the Glass Road. A caravan of traders crosses the Ashen Waste to reach the Glass City before winter. The road is long, the wells are few, and the old watchtowers are empty. Aria is a scout from the northern hills; Brannoc is a retired soldier who guards the wagons.',
  dmOnly: 'The caravan master is secretly in debt to the Glass City moneylenders and will sell the party out in act 3.',
};

/** Three public messages per round; round 2 is where the DM coins "the Geometers" and a "Void-Chisel". */
function roundMessages(round: number) {
  const dm =
    round === 2
      ? 'A hooded envoy joins the fire and whispers that the Geometers want the Void-Chisel, a blade that cuts doors into solid stone, and will pay any price for it.'
      : `Day ${round} of the journey: the wagons creak over cracked salt flats, the wind carries grit into every seam, and the oxen grow thinner with each mile.`;
  return [
    { role: 'dm', content: dm },
    {
      role: 'player',
      speaker: 'Aria',
      content: `Aria climbs the nearest dune at dusk of day ${round}, scans the horizon for riders and dust storms, and reports what she sees to the others around the fire.`,
    },
    {
      role: 'player',
      speaker: 'Brannoc',
      content: `Brannoc checks the wagon axles and counts the water barrels again; ${30 - round} barrels remain for the rest of the crossing, and he mutters that it will not be enough.`,
    },
  ];
}

jest.setTimeout(60_000);

describe('layered context (DESIGN §8) over a 14-round campaign', () => {
  const db = tempDb();
  let t: TestApp;
  const s = () => scenario(t, 'saga');

  beforeAll(async () => {
    t = await startTestApp({ dbPath: db.path });
    await s().create('The Glass Road', { perRoleMemory: true });
    await s().location('waste', 'The Ashen Waste');
    for (const [id, name, hp] of [
      ['aria', 'Aria', '14/14'],
      ['brannoc', 'Brannoc', '22/25'],
    ]) {
      const r = await t.http('PUT', `/v1/campaigns/saga/players/${id}`, { name, stats: { HP: hp, Water: '2 skins' } });
      expect(r.status).toBe(200);
    }
    await s().move('waste');
    expect((await t.http('PUT', '/v1/campaigns/saga/bible', BIBLE)).status).toBe(200);
    expect(
      (
        await t.http('PUT', '/v1/campaigns/saga/facts/quest/glass-city', {
          value: 'Reach the Glass City before the first snow',
        })
      ).status,
    ).toBe(200);
    for (let round = 1; round <= 14; round++) {
      await s().say(...roundMessages(round));
      if (round < 14) await s().command('end-round');
    }
    await s().settled();
  });
  afterAll(async () => {
    await t.close();
    db.cleanup();
  });

  const json = async (query: string) => {
    const res = await s().context(query);
    expect(res.status).toBe(200);
    return res.body;
  };
  const section = (body: any, key: string) => body.sections.find((x: any) => x.key === key);

  it('keeps round 2’s coined terms in the glossary at round 14 and recalls the round-2 message for a question about them', async () => {
    expect((await s().campaign()).round).toBe(14);
    const glossary = (await t.http('GET', '/v1/campaigns/saga/glossary')).body.items;
    expect(glossary.map((g: any) => [g.term, g.coinedMessageIndex])).toEqual([
      ['Geometers', 3],
      ['Void-Chisel', 3],
    ]);

    const dm = await json('?agent=dm&query=what%20do%20the%20Geometers%20want');
    expect(section(dm, 'glossary').entries.map((e: any) => e.ref)).toEqual(['Geometers', 'Void-Chisel']);
    const recent = section(dm, 'recent').entries.map((e: any) => Number(e.ref));
    expect(recent[0]).toBe(30); // hot = rounds 11–14
    const recalled = section(dm, 'recall');
    expect(recalled.title).toBe('Recalled');
    expect(recalled.entries[0]).toEqual(expect.objectContaining({ ref: '3' }));
    // §8 story time: the server filled `at` here, and a server-filled `at` is never printed.
    expect(recalled.entries[0].group).toBe('round 2');
    expect(recalled.entries[0].text).toMatch(
      /^dm: A hooded envoy joins the fire and whispers that the Geometers want the Void-Chisel/,
    );
    expect(recalled.entries.every((e: any) => !recent.includes(Number(e.ref)))).toBe(true);

    const text = (await s().context('?agent=dm&query=what%20do%20the%20Geometers%20want&format=text')).text;
    // The text form is a timeline: each round and day once, above its messages.
    expect(text).toMatch(/## Recalled\n### round 2\ndm: A hooded envoy/);
    const headers = text.split('\n').filter((l: string) => l.startsWith('### round '));
    expect(new Set(headers).size).toBe(headers.length);
  });

  it('recalls a short query word’s other number: "axle" finds the rounds where Brannoc checks the axles', async () => {
    const recalled: { entries: { ref: string; text: string }[] } = section(
      await json('?agent=dm&query=axle'),
      'recall',
    );
    // Best first: the hits themselves (the message after each comes along at a lower rank).
    const axles = recalled.entries.filter((e) => /^Brannoc: Brannoc checks the wagon axles/.test(e.text));
    expect(axles.length).toBeGreaterThanOrEqual(5);
    expect(recalled.entries[0].text).toMatch(/^Brannoc: Brannoc checks the wagon axles/);
    // Only the older rounds: rounds 11–14 are Recent Messages.
    expect(recalled.entries.every((e) => Number(e.ref) < 30)).toBe(true);
  });

  it('serves each preset in canonical order, and include= returns exactly the sections it lists', async () => {
    const keys = (body: any) => body.sections.map((x: any) => x.key);
    expect(keys(await json('?agent=dm'))).toEqual([
      'bible',
      'glossary',
      'digest',
      'scene',
      'previously',
      'location',
      'npc',
      'world',
      'recall',
      'recent',
    ]);
    expect(keys(await json('?agent=player&viewer=aria'))).toEqual([
      'bible',
      'glossary',
      'hud',
      'digest',
      'scene',
      'previously',
      'location',
      'npc',
      'world',
      'recall',
      'recent',
    ]);
    expect(keys(await json('?include=recent,bible'))).toEqual(['bible', 'recent']);
    expect(keys(await json('?agent=dm&include=glossary'))).toEqual(['glossary']);

    const dm = await json('?agent=dm');
    expect(section(dm, 'bible').entries.map((e: any) => e.text)).toEqual([BIBLE.text, `### DM only\n${BIBLE.dmOnly}`]);
    const player = await json('?agent=player&viewer=aria');
    expect(section(player, 'bible').entries.map((e: any) => e.text)).toEqual([BIBLE.text]);
    expect(section(player, 'hud').entries[0].text).toBe('HUD: HP 14/14 • Water 2 skins');
    // perRoleMemory: the player's own "Previously", the dm's is everyone's.
    expect(section(player, 'previously').entries).toHaveLength(1);
    expect(section(dm, 'previously').entries).toHaveLength(1);
    // `used` is the sections plus the text trailer (§8 amended: the pasted text never exceeds the budget).
    const sectionsTokens = dm.sections.reduce((n: number, x: any) => n + x.tokens, 0);
    expect(dm.tokens).toEqual({ budget: 4000, used: sectionsTokens + dm.tokens.trailer, trailer: expect.any(Number) });
    expect(dm.tokens.trailer).toBeGreaterThan(0);
    expect(dm.tokens.trailer).toBeLessThanOrEqual(40);

    // Nothing new asked: exactly the §2 narrative shape, no explain line.
    const legacy = await json('');
    expect(Object.keys(legacy)).toEqual(['version', 'processedVersion', 'sections']);
    expect((await s().context('?format=text')).text).not.toContain('<!--');
  });

  it('with budget 800 keeps bible, glossary, HUD, World State and Previously whole, drops the oldest recent turns first, and reports exactly what it dropped', async () => {
    const full = await json('?agent=player&viewer=aria&budget=200000');
    const tight = await json('?agent=player&viewer=aria&budget=800');
    expect(full.dropped.filter((d: any) => d.reason === 'budget')).toEqual([]);
    expect(tight.tokens.budget).toBe(800);
    expect(tight.overBudget).toBe(false);
    expect(tight.tokens.used).toBeLessThanOrEqual(800);
    expect(tight.tokens.used).toBe(tight.sections.reduce((n: number, x: any) => n + x.tokens, tight.tokens.trailer));
    for (const key of ['bible', 'glossary', 'hud', 'digest', 'previously']) {
      expect(section(full, key).entries.length).toBeGreaterThan(0);
      expect(section(tight, key)).toEqual(section(full, key));
    }
    const dropped = tight.dropped.filter((d: any) => d.reason === 'budget');
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped.every((d: any) => d.section === 'recent')).toBe(true);
    const fullRecent = section(full, 'recent').entries.map((e: any) => e.ref);
    const kept = section(tight, 'recent').entries.map((e: any) => e.ref);
    expect(kept.length).toBeGreaterThan(0);
    expect([...dropped.map((d: any) => d.ref), ...kept]).toEqual(fullRecent); // oldest first
    const savedTokens = full.tokens.used - full.tokens.trailer - (tight.tokens.used - tight.tokens.trailer);
    expect(dropped.reduce((n: number, d: any) => n + d.tokens, 0)).toBe(savedTokens);

    const text = (await s().context('?agent=player&viewer=aria&budget=800&format=text')).text;
    expect(text.trimEnd().split('\n').pop()).toBe(
      `<!-- context: ${tight.tokens.used}/800 tokens; dropped ${tight.dropped.length} (budget ${tight.dropped.length}) -->`,
    );
    expect((await s().context('?agent=player&viewer=aria&budget=800&format=text&explain=false')).text).not.toContain(
      '<!--',
    );
  });

  it('says overBudget when the never-dropped sections alone exceed the budget', async () => {
    const body = await json('?agent=dm&budget=50');
    expect(body.overBudget).toBe(true);
    expect(section(body, 'recent').entries).toEqual([]);
    expect(section(body, 'bible').entries).toHaveLength(2);
  });

  describe('bad input: 4xx problem+json with a code, nothing appended', () => {
    const cases: [string, string, string, unknown, number, string][] = [
      ['unknown agent', 'GET', '/context?agent=oracle', undefined, 400, 'VALIDATION_FAILED'],
      ['player without viewer', 'GET', '/context?agent=player', undefined, 400, 'VIEWER_REQUIRED'],
      ['npc without viewer', 'GET', '/context?agent=npc', undefined, 400, 'VIEWER_REQUIRED'],
      ['unknown player viewer', 'GET', '/context?agent=player&viewer=zed', undefined, 404, 'VIEWER_NOT_FOUND'],
      ['an NPC is no player viewer', 'GET', '/context?agent=npc&viewer=aria', undefined, 404, 'VIEWER_NOT_FOUND'],
      ['budget below 50', 'GET', '/context?agent=dm&budget=49', undefined, 400, 'INVALID_BUDGET'],
      ['budget above 200,000', 'GET', '/context?agent=dm&budget=200001', undefined, 400, 'INVALID_BUDGET'],
      ['budget not a number', 'GET', '/context?agent=dm&budget=lots', undefined, 400, 'INVALID_BUDGET'],
      ['unknown include key', 'GET', '/context?include=bible,gossip', undefined, 400, 'INVALID_INCLUDE'],
      [
        'query over 2,000 characters',
        'GET',
        `/context?agent=dm&query=${'a'.repeat(2001)}`,
        undefined,
        400,
        'VALIDATION_FAILED',
      ],
      ['bible text over 32,000 characters', 'PUT', '/bible', { text: 'x'.repeat(32_001) }, 400, 'BIBLE_TOO_LARGE'],
      [
        'bible dmOnly over 32,000 characters',
        'PUT',
        '/bible',
        { text: 'ok', dmOnly: 'é'.repeat(32_001) },
        400,
        'BIBLE_TOO_LARGE',
      ],
      ['bible without text', 'PUT', '/bible', { dmOnly: 'secret' }, 400, 'VALIDATION_FAILED'],
      [
        'private message without audience',
        'POST',
        '/messages',
        { messages: [{ role: 'dm', content: 'psst', visibility: 'private' }] },
        400,
        'AUDIENCE_REQUIRED',
      ],
      [
        'private message to an unknown character',
        'POST',
        '/messages',
        { messages: [{ role: 'dm', content: 'psst', visibility: 'private', audience: ['aria', 'ghost'] }] },
        404,
        'AUDIENCE_NOT_FOUND',
      ],
      [
        'audience without private visibility',
        'POST',
        '/messages',
        { messages: [{ role: 'dm', content: 'psst', audience: ['aria'] }] },
        400,
        'VALIDATION_FAILED',
      ],
      ['glossary definition empty', 'PUT', '/glossary/Geometers', { definition: ' ' }, 400, 'VALIDATION_FAILED'],
      ['glossary term too long', 'PUT', `/glossary/${'x'.repeat(101)}`, { definition: 'long' }, 400, 'INVALID_TERM'],
      [
        'glossary term with a control character',
        'PUT',
        '/glossary/bad%07term',
        { definition: 'bell' },
        400,
        'INVALID_TERM',
      ],
      ['hiding an unknown term', 'DELETE', '/glossary/Nothing%20Here', undefined, 404, 'GLOSSARY_TERM_NOT_FOUND'],
      ['settings without perRoleMemory', 'PUT', '/settings', {}, 400, 'VALIDATION_FAILED'],
    ];
    it.each(cases)('%s', async (_name, method, path, body, status, code) => {
      const before = await s().campaign();
      const memoryBefore = (await t.http('GET', '/v1/campaigns/saga/events?stream=memory&limit=1000')).body.items
        .length;
      const res = await t.http(method, `/v1/campaigns/saga${path}`, body);
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.code).toBe(code);
      const after = await s().campaign();
      expect(after.version).toBe(before.version);
      expect((await t.http('GET', '/v1/campaigns/saga/events?stream=memory&limit=1000')).body.items.length).toBe(
        memoryBefore,
      );
    });

    it('an unknown campaign is 404 for the bible and the glossary', async () => {
      expect((await t.http('PUT', '/v1/campaigns/nope/bible', { text: 'x' })).body.code).toBe('CAMPAIGN_NOT_FOUND');
      expect((await t.http('GET', '/v1/campaigns/nope/glossary')).status).toBe(404);
    });
  });

  it('recall favours what a speaker named in the query said, a question brings its reply, a statement its next message ranked below it', async () => {
    const c = scenario(t, 'wells');
    await c.create('Wells');
    await c.say(
      { role: 'player', speaker: 'Aria', content: 'Brannoc, the watchtower by the crossroads is empty again.' },
      {
        role: 'player',
        speaker: 'Brannoc',
        content: 'Brannoc climbs the ruined watchtower at dawn and finds a spring of clean water behind it.',
      },
      { role: 'player', speaker: 'Aria', content: 'Did you taste the water?' },
      { role: 'player', speaker: 'Brannoc', content: 'It tastes of iron, but it is clean.' },
    );
    for (let round = 2; round <= 6; round++) {
      await c.command('end-round');
      await c.say({ role: 'dm', content: `Round ${round}: the wagons roll on and Brannoc takes the reins.` });
    }
    await c.settled();
    const recalled = async (query: string) => {
      const res = await c.context(`?agent=dm&query=${encodeURIComponent(query)}`);
      expect(res.status).toBe(200);
      return res.body.sections.find((x: any) => x.key === 'recall').entries.map((e: any) => Number(e.ref));
    };
    // Both lines have both words and Aria's, shorter, ranks first on words alone; the question asks what Brannoc said.
    expect((await recalled('what about Brannoc and the watchtower'))[0]).toBe(1);
    // A statement's next message comes as its own candidate, ranked below the statement; a question's reply right after
    // it.
    expect(await recalled('crossroads')).toEqual([0, 1]);
    // The question (2) brings its reply (3), itself a hit; that statement brings the next message (4) below them.
    expect(await recalled('taste')).toEqual([2, 3, 4]);
  });

  it('recall favours what was said on the day a query names', async () => {
    const c = scenario(t, 'dates');
    await c.create('Dates');
    await c.say({ role: 'dm', content: 'The cistern is dry.', at: '2026-05-01T20:00:00.000Z' });
    await c.command('end-round');
    await c.say({ role: 'dm', content: 'The cistern by the chapel is dry again.', at: '2026-05-08T20:00:00.000Z' });
    for (let round = 3; round <= 7; round++) {
      await c.command('end-round');
      await c.say({ role: 'dm', content: `Round ${round}: the wagons roll on.` });
      // Index 3: a line of 15 May that shares no word with a query naming that day.
      if (round === 3)
        await c.say({ role: 'dm', content: 'The well-keeper hums an old song.', at: '2026-05-15T09:00:00Z' });
    }
    await c.settled();
    const recalled = async (query: string) => {
      const res = await c.context(`?agent=dm&query=${encodeURIComponent(query)}`);
      expect(res.status).toBe(200);
      return res.body.sections.find((x: any) => x.key === 'recall').entries.map((e: any) => Number(e.ref));
    };
    // Which of the two cistern lines (0 on 1 May, 1 on 8 May) ranks first; the rest are their next messages.
    const first = async (query: string) => (await recalled(query)).filter((i: number) => i < 2);
    expect(await first('the cistern')).toEqual([0, 1]); // the shorter line ranks first on words alone
    expect(await first('the cistern on 8 May 2026')).toEqual([1, 0]);
    expect(await first('the cistern on May 1st')).toEqual([0, 1]);
    expect((await recalled('the cistern on 8 May 2026'))[0]).toBe(1);
    // A query naming a day (with its year) also recalls that day's lines that match none of its words.
    expect(await recalled('what happened on 15 May 2026?')).toContain(3);
    expect(await recalled('what happened on May 15, 2026')).toContain(3);
    expect(await recalled('what happened on 16 May 2026?')).not.toContain(3);
    expect(await recalled('what happened?')).not.toContain(3);
    expect(await recalled('what happened in May 2026?')).toContain(3);
    expect(await recalled('what happened in June 2026?')).not.toContain(3);
  });

  it('perRoleMemory is set at creation and changed with PUT /settings', async () => {
    const c = scenario(t, 'settings');
    expect((await c.create('Settings')).settings).toEqual({ perRoleMemory: false, clock: 'story' });
    const res = await t.http('PUT', '/v1/campaigns/settings/settings', { perRoleMemory: true });
    expect(res.status).toBe(200);
    expect(res.body.settings).toEqual({ perRoleMemory: true, clock: 'story' });
    expect((await c.campaign()).settings).toEqual({ perRoleMemory: true, clock: 'story' });
    const again = await t.http('PUT', '/v1/campaigns/settings/settings', { perRoleMemory: true });
    expect(again.body.version).toBe(res.body.version);
  });

  it('serves the same context text, byte for byte, after a restart and after a projection rebuild', async () => {
    const queries = [
      '?agent=dm&format=text&query=what%20do%20the%20Geometers%20want',
      '?agent=player&viewer=aria&format=text&budget=800',
      '?agent=player&viewer=brannoc&format=text&query=water%20barrels',
      '?format=text',
      '?agent=dm&format=text&budget=1200&query=envoy%20blade',
    ];
    const read = async () => Promise.all(queries.map(async (q) => (await s().context(q)).text));
    const before = await read();
    const glossary = (await t.http('GET', '/v1/campaigns/saga/glossary')).body;
    const campaign = await s().campaign();
    const config = t.config;
    await t.close();

    t = await startTestApp({ dbPath: db.path });
    expect(await read()).toEqual(before);
    await t.close();

    const report = await rebuildProjections(config);
    expect(report.projections.gameEvents).toBeGreaterThan(50);
    expect(report.projections.memoryEvents).toBeGreaterThan(0);
    t = await startTestApp({ dbPath: db.path });
    expect(await read()).toEqual(before);
    expect((await t.http('GET', '/v1/campaigns/saga/glossary')).body).toEqual(glossary);
    expect(await s().campaign()).toEqual(campaign);
  });
});
