import { FixedClock } from '@app/common';
import { createHash } from 'node:crypto';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

/** DESIGN §6 over HTTP: facts on the game stream, the digest and its version, players and the HUD. */
describe('facts, digest and HUD (e2e)', () => {
  let t: TestApp;
  const clock = new FixedClock(new Date('2026-03-01T12:00:00.000Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(async () => t.close());

  async function campaign(id: string) {
    await scenario(t, id).create();
    const base = `/v1/campaigns/${id}`;
    const ok = async (method: string, path: string, body?: unknown) => {
      const res = await t.http(method, `${base}${path}`, body);
      if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
      return res.body;
    };
    return {
      base,
      ok,
      fact: (type: string, key: string, body: Record<string, unknown>) => ok('PUT', `/facts/${type}/${key}`, body),
      resolve: (type: string, key: string) => ok('POST', `/facts/${type}/${key}/resolve`),
      digest: () =>
        ok('GET', '/digest') as Promise<{
          version: string;
          text: string;
          tokens: number;
          dropped: { ref: string; section: string; reason: string }[];
        }>,
      context: (query: string) => ok('GET', `/context?${query}`),
      version: async () => (await ok('GET', '')).version as number,
    };
  }

  it('asserts facts as game events and serves the canonical digest', async () => {
    const c = await campaign('ws-basic');
    const put = await c.fact('conflict', 'geometers', { value: '  War with   the Geometers ', priority: 2 });
    expect(put.version).toBe(2);
    expect(put.fact).toMatchObject({
      type: 'conflict',
      key: 'geometers',
      value: 'War with   the Geometers',
      priority: 2,
      status: 'active',
      expiresAt: null,
    });
    await c.fact('buff', 'blessed', { value: 'Blessed by the moon', ttlSeconds: 600 });
    const d = await c.digest();
    expect(d.text).toBe('Buff: Blessed by the moon\nConflict: War with the Geometers');
    expect(d.version).toBe(createHash('sha256').update(d.text).digest('hex'));
    expect(d.dropped).toEqual([]);
    const events = (await c.ok('GET', '/events')).items.map((e: { type: string }) => e.type);
    expect(events).toEqual(['CampaignCreated', 'FactAsserted', 'FactAsserted']);
    expect(
      (await c.ok('GET', '/facts')).items.map((f: { key: string; expiresAt: string | null }) => [f.key, f.expiresAt]),
    ).toEqual([
      ['blessed', '2026-03-01T12:10:00.000Z'],
      ['geometers', null],
    ]);
  });

  it('gives the same version for the same facts asserted in another order', async () => {
    const facts: [string, string, Record<string, unknown>][] = [
      ['conflict', 'war', { value: 'War in the north' }],
      ['debt', 'aria', { value: 'Aria owes Borin 50 gold', priority: 3 }],
      ['rumor', 'ghost', { value: 'A ghost walks the docks', expiresAt: '2026-03-02T00:00:00Z' }],
      ['weather', 'storm', { value: 'Storm over the bay' }],
    ];
    const a = await campaign('ws-order-a');
    const b = await campaign('ws-order-b');
    for (const [type, key, body] of facts) await a.fact(type, key, body);
    for (const [type, key, body] of [...facts].reverse()) await b.fact(type, key, body);
    const [da, db] = [await a.digest(), await b.digest()];
    expect(da.text).toBe(db.text);
    expect(da.version).toBe(db.version);
  });

  it('an expired timer leaves the digest and changes its version, without any event', async () => {
    const c = await campaign('ws-timer');
    await c.fact('conflict', 'war', { value: 'War in the north' });
    await c.fact('timer', 'reactor', { value: 'Reactor breach in 60 seconds', ttlSeconds: 60 });
    const before = await c.digest();
    expect(before.text).toContain('Timer: Reactor breach');
    const version = await c.version();
    clock.advance(61_000);
    const after = await c.digest();
    expect(after.text).toBe('Conflict: War in the north');
    expect(after.version).not.toBe(before.version);
    expect(await c.version()).toBe(version);
    expect((await c.ok('GET', '/facts?status=expired')).items.map((f: { key: string }) => f.key)).toEqual(['reactor']);
    expect((await c.ok('GET', '/facts?status=all')).items).toHaveLength(2);
  });

  it('a resolved conflict leaves the digest; resolving twice is 409, an unknown fact 404', async () => {
    const c = await campaign('ws-resolve');
    await c.fact('conflict', 'war', { value: 'War in the north' });
    await c.fact('alliance', 'guild', { value: 'Allied with the Guild' });
    const resolved = await c.resolve('conflict', 'war');
    expect(resolved.fact).toMatchObject({ status: 'resolved', resolvedAt: clock.now().toISOString() });
    expect((await c.digest()).text).toBe('Alliance: Allied with the Guild');
    expect((await c.ok('GET', '/facts?status=resolved')).items.map((f: { key: string }) => f.key)).toEqual(['war']);
    const version = await c.version();
    const again = await t.http('POST', `${c.base}/facts/conflict/war/resolve`);
    expect([again.status, again.body.code]).toEqual([409, 'FACT_ALREADY_RESOLVED']);
    const unknown = await t.http('POST', `${c.base}/facts/conflict/peace/resolve`);
    expect([unknown.status, unknown.body.code]).toEqual([404, 'FACT_NOT_FOUND']);
    expect(await c.version()).toBe(version);
  });

  it('over DIGEST_MAX_TOKENS drops ephemeral lines first and reports every dropped fact', async () => {
    const c = await campaign('ws-trim');
    for (let i = 0; i < 6; i++)
      await c.fact('relationship', `r${i}`, {
        value: `Relationship ${i}: the crew of the Kestrel trusts captain number ${i} with their lives`,
      });
    for (let i = 0; i < 8; i++)
      await c.fact('buff', `b${i}`, {
        value: `Buff ${i}: blessed by the ${i}th moon priestess for the whole of the coming journey`,
        ttlSeconds: 3600,
        priority: i % 2,
      });
    await c.fact('weather', 'w', { value: 'Storm over the bay for the next three days and nights' });
    const d = await c.digest();
    expect(d.tokens).toBeLessThanOrEqual(180);
    expect(d.dropped.length).toBeGreaterThan(0);
    expect(d.dropped.every((x) => x.ref.startsWith('buff:') && x.section === 'digest' && x.reason === 'budget')).toBe(
      true,
    );
    // Lowest priority first: every even (priority 0) buff goes before any odd one.
    const firstOdd = d.dropped.findIndex((x) => Number(x.ref.slice(6)) % 2 === 1);
    if (firstOdd >= 0) expect(d.dropped.slice(firstOdd).every((x) => Number(x.ref.slice(6)) % 2 === 1)).toBe(true);
    for (let i = 0; i < 6; i++) expect(d.text).toContain(`Relationship: Relationship ${i}:`);
    expect(d.text).toContain('Weather: Storm');
    expect(d.version).toBe(createHash('sha256').update(d.text).digest('hex'));
    const ctx = await c.context('agent=agent&include=digest');
    expect(ctx.dropped.map((x: { ref: string }) => x.ref)).toEqual(d.dropped.map((x) => x.ref));
  });

  it('digestVersion round trip: injected, then left out, then injected again after a change', async () => {
    const c = await campaign('ws-inject');
    await c.fact('quest', 'relic', { value: 'Find the relic of Varn' });
    const first = await c.context('agent=agent');
    expect(first.digest).toEqual({ version: (await c.digest()).version, injected: true });
    expect(first.sections.find((s: { key: string }) => s.key === 'digest')).toMatchObject({
      title: 'World State',
      entries: [{ ref: 'quest:relic', text: 'Quest: Find the relic of Varn' }],
    });
    const held = first.digest.version;
    const second = await c.context(`agent=agent&digestVersion=${held}`);
    expect(second.digest).toEqual({ version: held, injected: false });
    expect(second.sections.map((s: { key: string }) => s.key)).not.toContain('digest');
    const text = await t.http('GET', `${c.base}/context?agent=agent&digestVersion=${held}&format=text`);
    expect(text.text).not.toContain('World State');
    await c.fact('quest', 'relic', { value: 'Bring the relic of Varn to the temple' });
    const third = await c.context(`agent=agent&digestVersion=${held}`);
    expect(third.digest.injected).toBe(true);
    expect(third.digest.version).not.toBe(held);
    expect(third.sections.find((s: { key: string }) => s.key === 'digest').entries[0].text).toBe(
      'Quest: Bring the relic of Varn to the temple',
    );
    expect((await c.context('include=digest')).digest.injected).toBe(true);
    expect((await c.context('include=state')).digest).toBeUndefined();
  });

  it('players keep their stats in order and the HUD line stays within HUD_MAX_TOKENS', async () => {
    const c = await campaign('ws-hud');
    const put = await c.ok('PUT', '/players/aria', {
      name: 'Aria',
      aliases: ['the Bold'],
      stats: { HP: '12/20', Gold: 35, Status: 'poisoned' },
    });
    expect(put.player).toMatchObject({
      id: 'aria',
      stats: { HP: '12/20', Gold: 35, Status: 'poisoned' },
      registeredVersion: 2,
      hud: { text: 'HUD: HP 12/20 • Gold 35 • Status poisoned' },
    });
    const text = await t.http('GET', `${c.base}/context?agent=player&viewer=aria&include=hud,digest&format=text`);
    expect(text.text.startsWith('HUD: HP 12/20 • Gold 35 • Status poisoned\n')).toBe(true);

    const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`Stat${i}`, `value number ${i}`]));
    await c.ok('PUT', '/players/aria', { name: 'Aria', stats: many });
    const ctx = await c.context('agent=player&viewer=aria&include=hud');
    const hud = ctx.sections.find((s: { key: string }) => s.key === 'hud');
    expect(hud.tokens).toBeLessThanOrEqual(40);
    expect(hud.entries[0].text.startsWith('HUD: Stat0 value number 0 • Stat1 value number 1')).toBe(true);
    const dropped = ctx.dropped
      .filter((d: { section: string }) => d.section === 'hud')
      .map((d: { ref: string }) => d.ref);
    const kept = 12 - dropped.length;
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped).toEqual(Object.keys(many).slice(kept));
    expect(hud.entries[0].text).toContain(`Stat${kept - 1} value number ${kept - 1}`);
    // The HUD is never dropped for budget, even when the budget is tiny.
    const tight = await c.context('agent=player&viewer=aria&include=hud&budget=50');
    expect(tight.sections.map((s: { key: string }) => s.key)).toEqual(['hud']);
    expect((await c.ok('GET', '/players/aria')).aliases).toEqual(['the Bold']);
  });

  it('a plain narrative request keeps the §2 shape even when facts exist', async () => {
    const c = await campaign('ws-legacy');
    await c.fact('conflict', 'war', { value: 'War' });
    const res = await c.context('');
    expect(Object.keys(res).sort()).toEqual(['processedVersion', 'sections', 'version']);
  });

  describe('bad input: 4xx problem+json with a code, nothing appended', () => {
    const cases: [string, string, string, unknown, number, string][] = [
      ['value of the wrong type', 'PUT', '/facts/conflict/war', { value: 5 }, 400, 'VALIDATION_FAILED'],
      ['empty value', 'PUT', '/facts/conflict/war', { value: '   ' }, 400, 'VALIDATION_FAILED'],
      [
        'priority not an integer',
        'PUT',
        '/facts/conflict/war',
        { value: 'x', priority: 1.5 },
        400,
        'VALIDATION_FAILED',
      ],
      ['fact type with capitals', 'PUT', '/facts/Conflict/war', { value: 'x' }, 400, 'INVALID_FACT_TYPE'],
      ['fact key with bad characters', 'PUT', '/facts/conflict/w%21r', { value: 'x' }, 400, 'INVALID_ID'],
      [
        'TTL on a past date',
        'PUT',
        '/facts/timer/t',
        { value: 'x', expiresAt: '2026-02-01T00:00:00Z' },
        400,
        'EXPIRES_IN_PAST',
      ],
      ['missing TTL on an ephemeral type', 'PUT', '/facts/buff/b', { value: 'Blessed' }, 400, 'TTL_REQUIRED'],
      [
        'ttlSeconds with expiresAt',
        'PUT',
        '/facts/buff/b',
        { value: 'x', ttlSeconds: 5, expiresAt: '2027-01-01T00:00:00Z' },
        400,
        'TTL_CONFLICT',
      ],
      ['ttlSeconds zero', 'PUT', '/facts/buff/b', { value: 'x', ttlSeconds: 0 }, 400, 'INVALID_TTL'],
      ['ttlSeconds not an integer', 'PUT', '/facts/buff/b', { value: 'x', ttlSeconds: 1.5 }, 400, 'INVALID_TTL'],
      ['ttlSeconds as a string', 'PUT', '/facts/buff/b', { value: 'x', ttlSeconds: '60' }, 400, 'INVALID_TTL'],
      ['unknown fact status filter', 'GET', '/facts?status=pending', undefined, 400, 'INVALID_STATUS'],
      ['resolve with a body', 'POST', '/facts/conflict/known/resolve', { now: true }, 400, 'VALIDATION_FAILED'],
      [
        'player stats of the wrong type',
        'PUT',
        '/players/bob',
        { name: 'Bob', stats: { HP: { max: 3 } } },
        400,
        'VALIDATION_FAILED',
      ],
      ['player without a name', 'PUT', '/players/bob', { stats: { HP: 3 } }, 400, 'VALIDATION_FAILED'],
      ['player id taken by an NPC', 'PUT', '/players/borin', { name: 'Borin' }, 409, 'CHARACTER_ID_TAKEN'],
      ['unknown player', 'GET', '/players/nobody', undefined, 404, 'PLAYER_NOT_FOUND'],
      ['unknown viewer', 'GET', '/context?agent=player&viewer=nobody&include=hud', undefined, 404, 'VIEWER_NOT_FOUND'],
      [
        'digestVersion not a SHA-256',
        'GET',
        '/context?agent=agent&digestVersion=abc',
        undefined,
        400,
        'VALIDATION_FAILED',
      ],
    ];
    let c: Awaited<ReturnType<typeof campaign>>;
    beforeAll(async () => {
      c = await campaign('ws-bad');
      await scenario(t, 'ws-bad').npc('borin', 'Borin', null);
      await c.fact('conflict', 'known', { value: 'Known' });
    });

    it.each(cases)('%s', async (_name, method, path, body, statusCode, code) => {
      const version = await c.version();
      const digest = await c.digest();
      const res = await t.http(method, `${c.base}${path}`, body);
      expect(res.status).toBe(statusCode);
      expect(res.body.code).toBe(code);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(await c.version()).toBe(version);
      expect(await c.digest()).toEqual(digest);
      expect((await c.ok('GET', '/players')).items).toEqual([]);
    });
  });
});
