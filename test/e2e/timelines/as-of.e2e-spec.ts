import { RecordingSummarizer } from '../../support/recording-summarizer';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

/**
 * DESIGN §10 "As-of reads": a read with `asOf=V` answers what the campaign served when it stood at V. The campaign is
 * played step by step; after each step (worker caught up) every read is captured; at the end each read with `asOf`
 * of each captured version must equal what was captured — whole responses, not samples.
 */
const CID = 'asof';

/** Every read §10 gives `asOf`, for one version (undefined = current). */
async function readAll(t: TestApp, asOf?: number): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const base = `/v1/campaigns/${CID}`;
  const read = async (key: string, path: string) => {
    const sep = path.includes('?') ? '&' : '?';
    const res = await t.http('GET', `${base}${path}${asOf === undefined ? '' : `${sep}asOf=${asOf}`}`);
    if (res.status !== 200) throw new Error(`GET ${path} asOf=${asOf} → ${res.status} ${res.text}`);
    // A hit's score is relative to the whole index's statistics (every campaign's rows, now): it is not history. Ids,
    // order, snippets and dates are.
    out[key] = key.startsWith('search.')
      ? res.body.items.map(({ score: _s, ...hit }: { score: number }) => hit)
      : res.body;
  };
  await read('campaign', '');
  await read('context.narrative', '/context');
  await read('context.dm', '/context?agent=dm&budget=2000');
  await read('context.dm.query', '/context?agent=dm&query=lighthouse%20crates');
  await read('context.dm.text', '/context?agent=dm&format=text');
  await read('context.npc', '/context?agent=npc&viewer=mira');
  await read('context.narrative.public', '/context?agent=narrative&budget=3000');
  // An as-of context assembles only the state kinds its sections read: a player's preset (HUD included) and a subset.
  await read('context.player', '/context?agent=player&viewer=aria');
  await read('context.dm.scene', '/context?agent=dm&include=scene,recent');
  await read('players', '/players');
  await read('memories', '/memories');
  await read('memories.location', '/memories?scope=location&subjectId=tavern');
  await read('messages', '/messages');
  await read('messages.tavern', '/messages?locationId=tavern&limit=3');
  await read('events.game', '/events');
  await read('events.memory', '/events?stream=memory');
  await read('glossary', '/glossary');
  await read('bible', '/bible');
  await read('facts', '/facts?status=all');
  await read('digest', '/digest');
  await read('search.messages', '/search?q=crates');
  await read('search.memories', '/search?q=crates&in=memories');
  return out;
}

describe('as-of reads (DESIGN §10)', () => {
  let t: TestApp;
  const summarizer = new RecordingSummarizer();
  const served = new Map<number, Record<string, unknown>>();
  let final = 0;

  beforeAll(async () => {
    t = await startTestApp({ summarizer });
    const s = scenario(t, CID);
    const capture = async () => {
      await s.settled();
      const { version } = await s.campaign();
      served.set(version, await readAll(t));
      final = version;
    };
    await s.create('As of');
    await s.npc('mira', 'Mira', null);
    await t.http('PUT', `/v1/campaigns/${CID}/players/aria`, { name: 'Aria', stats: { HP: '10/10' } });
    await capture();
    await s.location('tavern', 'The Rusty Anchor');
    await s.location('docks', 'The Docks', 'LOW');
    await s.npc('mira', 'Mira', 'tavern', ['the barkeep']);
    await s.quest('relic', 'The Drowned Relic', [{ id: 'find-map', name: 'Find the map' }]);
    await s.move('tavern');
    await capture();
    await s.say(
      { role: 'player', speaker: 'Aria', content: 'Aria asks Mira about the crates.' },
      {
        role: 'npc',
        speaker: 'Mira',
        content: 'Smugglers moved forty crates to the old lighthouse.',
        npcIds: ['mira'],
      },
    );
    await t.http('PUT', `/v1/campaigns/${CID}/bible`, { text: 'Saltmere is a port.', dmOnly: 'Mira informs.' });
    await t.http('PUT', `/v1/campaigns/${CID}/facts/conflict/guild`, { value: 'The Guild is at war' });
    await capture();
    await s.move('docks');
    await s.say({ role: 'dm', content: 'The docks smell of tar; a Void-Chisel lies in a crate at the lighthouse.' });
    await s.command('complete-objective', { questId: 'relic', objectiveId: 'find-map' });
    await t.http('PUT', `/v1/campaigns/${CID}/players/aria`, { name: 'Aria', stats: { HP: '4/10', Gold: 12 } });
    await capture();
    await s.command('end-round');
    await t.http('PUT', `/v1/campaigns/${CID}/glossary/Void-Chisel`, { definition: 'A blade that cuts doors.' });
    await s.npc('mira', 'Mira', 'docks', ['the barkeep']);
    await s.move('tavern');
    await s.say({ role: 'player', speaker: 'Aria', content: 'Back at the tavern, Aria orders stew.' });
    await t.http('POST', `/v1/campaigns/${CID}/facts/conflict/guild/resolve`, {});
    await capture();
  }, 120_000);
  afterAll(async () => t.close());

  it('serves at each earlier version exactly what the campaign served then', async () => {
    expect(served.size).toBe(5);
    // The campaign did change between the captures: memories, messages and the scene all grew.
    const distinct = (key: string) => new Set([...served.values()].map((r) => JSON.stringify(r[key]))).size;
    expect(distinct('memories')).toBeGreaterThanOrEqual(3);
    expect(distinct('messages')).toBeGreaterThanOrEqual(3);
    expect(distinct('context.dm')).toBe(5);
    expect(distinct('context.player')).toBeGreaterThanOrEqual(3);
    expect(distinct('players')).toBe(2);
    for (const [version, then] of served) {
      const now = await readAll(t, version);
      expect({ version, reads: now }).toEqual({ version, reads: then });
    }
  });

  it('bounds what a past read sees: a version before the messages has none', async () => {
    const [first] = [...served.keys()].sort((a, b) => a - b);
    const { body } = await t.http('GET', `/v1/campaigns/${CID}/messages?asOf=${first}`);
    expect(body.items).toEqual([]);
    const ctx = (await t.http('GET', `/v1/campaigns/${CID}/context?agent=dm&asOf=${first}`)).body;
    expect(ctx.version).toBe(first);
    expect(ctx.sections.find((x: { key: string }) => x.key === 'recent').entries).toEqual([]);
    const current = (await t.http('GET', `/v1/campaigns/${CID}/messages`)).body;
    expect(current.items.length).toBe(4);
  });

  it('leaves the game-state section out of an as-of context, reported as not-historical', async () => {
    const { body } = await t.http('GET', `/v1/campaigns/${CID}/context?agent=agent&include=state,recent&asOf=${final}`);
    expect(body.sections.map((x: { key: string }) => x.key)).toEqual(['recent']);
    expect(body.dropped).toContainEqual({ section: 'state', ref: 'state', tokens: 0, reason: 'not-historical' });
  });

  it('judges fact expiry at the time of the version read', async () => {
    const c = scenario(t, 'asof-ttl');
    await c.create('TTL');
    const res = await t.http('PUT', '/v1/campaigns/asof-ttl/facts/buff/haste', { value: 'Hasted', ttlSeconds: 1 });
    expect(res.status).toBe(200);
    const v = res.body.version;
    await new Promise((r) => setTimeout(r, 1100));
    const past = (await t.http('GET', `/v1/campaigns/asof-ttl/facts?status=all&asOf=${v}`)).body.items;
    const nowItems = (await t.http('GET', '/v1/campaigns/asof-ttl/facts?status=all')).body.items;
    expect(past.map((f: { status: string }) => f.status)).toEqual(['active']);
    expect(nowItems.map((f: { status: string }) => f.status)).toEqual(['expired']);
  });

  describe('bad asOf → 400 INVALID_VERSION (problem+json)', () => {
    const routes = [
      '',
      '/context',
      '/memories',
      '/messages',
      '/events',
      '/glossary',
      '/bible',
      '/facts',
      '/digest',
      '/search?q=crates',
    ];
    const cases = ['0', '-1', 'abc', '1.5', 'FINAL+1'];
    it.each(routes)('GET …%s', async (route) => {
      const before = (await t.http('GET', `/v1/campaigns/${CID}`)).body.version;
      for (const raw of cases) {
        const value = raw === 'FINAL+1' ? String(before + 1) : raw;
        const sep = route.includes('?') ? '&' : '?';
        const res = await t.http('GET', `/v1/campaigns/${CID}${route}${sep}asOf=${encodeURIComponent(value)}`);
        expect({ value, status: res.status, code: res.body?.code }).toEqual({
          value,
          status: 400,
          code: 'INVALID_VERSION',
        });
        expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      }
      expect((await t.http('GET', `/v1/campaigns/${CID}`)).body.version).toBe(before);
    });

    it('asOf with minVersion or waitMs', async () => {
      for (const extra of ['minVersion=1', 'waitMs=10', 'minVersion=1&waitMs=10']) {
        const res = await t.http('GET', `/v1/campaigns/${CID}/context?asOf=1&${extra}`);
        expect({ extra, status: res.status, code: res.body.code }).toEqual({
          extra,
          status: 400,
          code: 'INVALID_VERSION',
        });
      }
    });

    it('an unknown campaign is still 404', async () => {
      const res = await t.http('GET', '/v1/campaigns/nobody?asOf=1');
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('CAMPAIGN_NOT_FOUND');
    });
  });
});
