import { TiktokenCounter } from '@app/context';
import { section } from '../../support/context-text';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(120_000);

/** Sentences as the no-sentence-twice rule compares them: labels, case and spacing aside. */
const LABELS = /^(?:[^\s:.!?"“”()[\]][^:.!?"“”()[\]]{0,60}?:\s+)+/u;
const sentences = (text: string) =>
  text
    .split(/(?<=[.!?…]["'”’)\]]*)\s+/u)
    .map((s) => s.replace(LABELS, '').toLowerCase().replace(/\s+/g, ' ').trim())
    .filter(Boolean);

/**
 * DESIGN §8 "What makes a context pasteable" (amended) for a player's model: the scene of the newcomer — two players,
 * an NPC, a whisper to Lyra, a dm note, an objective — read by the dm, both players and the NPC.
 */
describe('contexts a player’s model can be trusted with (DESIGN §8 amended)', () => {
  let t: TestApp;
  const s = () => scenario(t, 'newcomer');
  const text = async (query: string) => {
    const res = await s().context(`${query}&format=text`);
    expect(res.status).toBe(200);
    return res.text as string;
  };
  const json = async (query: string) => {
    const res = await s().context(query);
    expect(res.status).toBe(200);
    return res.body;
  };
  const VIEWS = [
    ['?agent=dm', null],
    ['?agent=player&viewer=lyra', 'You are Lyra (player).'],
    ['?agent=player&viewer=kael', 'You are Kael (player).'],
    ['?agent=npc&viewer=oswin', 'You are Oswin the Keeper (npc).'],
  ] as const;

  beforeAll(async () => {
    t = await startTestApp();
    await s().create('The Newcomer');
    await s().location('hall', 'The Lantern Hall', 'SAFE');
    await s().location('crypt', 'The Old Crypt', 'HIGH');
    await s().npc('oswin', 'Oswin the Keeper', 'hall');
    await t.http('PUT', '/v1/campaigns/newcomer/players/lyra', { name: 'Lyra' });
    await t.http('PUT', '/v1/campaigns/newcomer/players/kael', { name: 'Kael' });
    await s().quest('lamp', 'The Dark Lamp', [
      { id: 'ask', name: 'Ask Oswin about the lamp' },
      { id: 'light', name: 'Light the lamp' },
    ]);
    await s().command('change-location', { toLocationId: 'hall', storyTime: 'Day 3 of Frostmoon, dusk' });
    await s().say(
      { role: 'dm', content: 'The Lantern Hall smells of cold wax and old rain.' },
      { role: 'player', speaker: 'Lyra', content: 'Lyra asks Oswin what happened to the lamp.' },
      {
        role: 'npc',
        speaker: 'Oswin the Keeper',
        content: 'The Ember Ward broke when the lamp went dark, Oswin whispers.',
        visibility: 'private',
        audience: ['lyra'],
      },
      { role: 'dm', content: 'Oswin lit the lamp himself and lies about it.', visibility: 'dm' },
      { role: 'player', speaker: 'Kael', content: 'Kael studies the soot on the walls.' },
    );
    await s().command('complete-objective', { questId: 'lamp', objectiveId: 'ask' });
    await s().command('change-location', { toLocationId: 'crypt', storyTime: 'Day 4 of Frostmoon, dawn' });
    await s().say({ role: 'dm', content: 'Bones line the walls of the Old Crypt.' });
    await s().settled();
  });

  afterAll(async () => {
    await t.close();
  });

  it('a viewer’s Scene opens with whose view it is; the dm’s has no such line (text and JSON)', async () => {
    for (const [query, you] of VIEWS) {
      const scene = section(await text(`${query}&budget=200000`), 'Scene')!;
      if (you) expect(scene[0]).toBe(you);
      else expect(scene[0]).toBe('Round 1');
      const body = await json(`${query}&budget=200000`);
      const entries = body.sections.find((x: any) => x.key === 'scene').entries;
      expect(entries[0].ref).toBe(you ? 'viewer' : 'round');
    }
  });

  it('secrets are marked in every view that shows them: Lyra knows her whisper is a secret; nobody else sees it', async () => {
    const query = 'Ember%20Ward%20lamp';
    const whisper = '(private: Lyra) Oswin the Keeper: The Ember Ward broke when the lamp went dark';
    const dm = await text(`?agent=dm&budget=200000&query=${query}`);
    expect(dm).toContain(whisper);
    expect(dm).toContain('(dm only) dm: Oswin lit the lamp himself');
    const lyra = await text(`?agent=player&viewer=lyra&budget=200000&query=${query}`);
    expect(lyra).toContain(whisper);
    expect(lyra).not.toContain('(dm only)');
    const oswin = await text(`?agent=npc&viewer=oswin&budget=200000&query=${query}`);
    expect(oswin).toContain(whisper); // the speaker witnesses what it says
    const kael = await text(`?agent=player&viewer=kael&budget=200000&query=${query}`);
    expect(kael).not.toMatch(/Ember Ward broke|\(private|\(dm only\)|lit the lamp himself/);
    // Every line that holds the whisper carries its mark, in JSON too.
    for (const [q] of VIEWS) {
      const body = await json(`${q}&budget=200000&query=${query}`);
      for (const sec of body.sections)
        for (const e of sec.entries)
          if (sec.key !== 'glossary' && e.text.includes('Ember Ward broke'))
            expect(e.text).toContain('(private: Lyra)');
    }
  });

  it('the trailer is small and counted: used includes it, and no text exceeds its budget across 50 → 4,000', async () => {
    const counter = new TiktokenCounter();
    for (const [query] of VIEWS)
      for (const budget of [50, 75, 100, 150, 200, 250, 300, 400, 600, 1000, 2000, 4000]) {
        const body = await json(`${query}&budget=${budget}&query=lamp`);
        const sections = body.sections.reduce((n: number, x: any) => n + x.tokens, 0);
        expect(body.tokens.used).toBe(sections + body.tokens.trailer);
        expect(body.tokens.trailer).toBeLessThanOrEqual(40);
        const pasted = await text(`${query}&budget=${budget}&query=lamp`);
        const trailer = pasted.trimEnd().split('\n').pop()!;
        expect(trailer).toMatch(
          /^<!-- context: \d+\/\d+ tokens; dropped \d+( \((\w|-)+ \d+(, (\w|-)+ \d+)*\))?( ?; over budget)? -->$/,
        );
        expect(trailer).not.toMatch(/#/); // counts per reason, never refs
        expect(counter.count(`\n${trailer}\n`)).toBeLessThanOrEqual(40);
        expect(trailer).toContain(`context: ${body.tokens.used}/${budget} tokens; dropped ${body.dropped.length}`);
        if (!body.overBudget) {
          expect(body.tokens.used).toBeLessThanOrEqual(budget);
          // What is pasted, counted whole, stays within the budget too (a few tokens of blank lines aside).
          expect(counter.count(pasted)).toBeLessThanOrEqual(budget + 8);
        }
      }
  });

  it('no sentence twice across glossary, memories, Previously and messages, in any view', async () => {
    for (const [query] of VIEWS) {
      const body = await json(`${query}&budget=200000&query=lamp%20Ember%20Ward`);
      const seen = new Map<string, string>();
      for (const sec of body.sections)
        for (const e of sec.entries) {
          const said = e.text
            .replace(/^- (?:\[[^\]]*\] Memory \([^)]*\): |Glossary — [^:]+: |[^—:]{1,90} — |[^:]{1,80}: )/u, '')
            .replace(/^\[\d+\] (?:\([^)]*\) )?/, '');
          for (const key of sentences(said)) {
            // Recall may repeat a line Recent Messages print only when both are whole messages (reported duplicate).
            expect([query, key, seen.get(key)]).toEqual([query, key, undefined]);
            seen.set(key, `${sec.key}#${e.ref}`);
          }
        }
    }
  });

  it('dates in story time: headers carry it, memories are dated by their last message, no server wall date', async () => {
    const dm = await text('?agent=dm&budget=200000');
    expect(section(dm, 'Recent Messages')).toEqual(
      expect.arrayContaining([
        '### round 1 · The Lantern Hall · Day 3 of Frostmoon, dusk',
        '### round 1 · The Old Crypt · Day 4 of Frostmoon, dawn',
      ]),
    );
    // The hall's memory ends with the hall's last message: dated at dusk of day 3, not when the worker ran.
    const hall = await json('?agent=dm&budget=200000&include=world');
    expect(hall.sections[0].entries[0].text).toMatch(/^- Day 3 of Frostmoon, dusk — /);
    const year = String(new Date().getUTCFullYear());
    expect(dm).not.toContain(year);
    const messages = (await t.http('GET', '/v1/campaigns/newcomer/messages')).body.items;
    expect(messages[0]).toMatchObject({ storyTime: 'Day 3 of Frostmoon, dusk', atFilled: true });
    expect(messages.at(-1)).toMatchObject({ storyTime: 'Day 4 of Frostmoon, dawn' });
    expect((await s().campaign()).settings).toEqual({ perRoleMemory: false, clock: 'story' });
  });

  it('revision and origin on context memory entries; a correction shows origin dm', async () => {
    const body = await json('?agent=dm&budget=200000&include=world,location');
    const world = body.sections.find((x: any) => x.key === 'world').entries;
    expect(world[0]).toMatchObject({ revision: 1, origin: 'model' });
    const id = world[0].ref;
    const put = await t.http('PUT', `/v1/campaigns/newcomer/memories/${encodeURIComponent(id)}`, {
      summary: 'Lyra learned what broke the ward.',
    });
    expect(put.status).toBeLessThan(300);
    await s().settled();
    const after = await json('?agent=dm&budget=200000&include=world');
    expect(after.sections[0].entries.find((e: any) => e.ref === id)).toMatchObject({
      revision: 2,
      origin: 'dm',
      text: expect.stringMatching(/ — Lyra learned what broke the ward\.$/),
    });
    // The §2 form stays exactly {ref, subjectId, createdAt, text}.
    const legacy = (await s().context('')).body;
    for (const sec of legacy.sections)
      for (const e of sec.entries) expect(Object.keys(e).sort()).toEqual(['createdAt', 'ref', 'subjectId', 'text']);
  });
});

describe('story time and the campaign clock (DESIGN §8 amended)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const seed = async (id: string) => {
    const c = scenario(t, id);
    await c.create('Clocks');
    await c.location('inn', 'The Inn');
    await c.location('road', 'The Road');
    await c.move('inn');
    await c.say(
      { role: 'dm', content: 'Rain on the shutters.', at: '1247-03-14T20:00:00.000Z', storyTime: 'Night of the Flood' },
      { role: 'dm', content: 'The fire dies down.', at: '1247-03-14T23:00:00.000Z' },
      { role: 'dm', content: 'No one remembers when this was said.' },
    );
    await c.command('end-round', { storyTime: 'Morning after the Flood' });
    await c.say({ role: 'dm', content: 'Grey light at the window.' });
    await c.move('road');
    await c.move('inn'); // back at the inn: its memory (of the four lines) is in the context
    await c.settled();
    return c;
  };
  const recentHeaders = (text: string) => text.split('\n').filter((l) => l.startsWith('### '));

  it('story (default): story time, else the client’s day, else the round; a command sets the story time too', async () => {
    const c = await seed('clock-story');
    const dm = (await c.context('?agent=dm&budget=200000&format=text')).text;
    expect(recentHeaders(dm)).toEqual([
      '### round 1 · The Inn · Night of the Flood',
      '### round 2 · The Inn · Morning after the Flood',
    ]);
    // A message without a story time is at the campaign's then: the second and third lines share the first's.
    const items = (await t.http('GET', '/v1/campaigns/clock-story/messages')).body.items;
    expect(items.map((m: any) => m.storyTime)).toEqual([
      'Night of the Flood',
      'Night of the Flood',
      'Night of the Flood',
      'Morning after the Flood',
    ]);
    // The inn's memory is dated by its last message: the morning after, not when the worker ran.
    const memory = (await c.context('?agent=dm&include=location&format=text')).text;
    expect(memory).toMatch(/^- Morning after the Flood — /m);
    expect(dm).not.toMatch(/\b20\d\d\b/);
  });

  it('wall: the client’s `at` only (a day); none: no dates, round headers stay', async () => {
    const c = await seed('clock-wall');
    expect((await t.http('PUT', '/v1/campaigns/clock-wall/settings', { clock: 'wall' })).body.settings).toEqual({
      perRoleMemory: false,
      clock: 'wall',
    });
    const wall = (await c.context('?agent=dm&budget=200000&format=text')).text;
    expect(recentHeaders(wall)).toEqual([
      '### round 1 · The Inn · 14 March 1247',
      '### round 1 · The Inn',
      '### round 2 · The Inn',
    ]);
    // The memory's last message has no client `at`: only its round.
    expect((await c.context('?agent=dm&include=location&format=text')).text).toMatch(/^- round 2 — /m);
    expect(wall).not.toContain('Flood');
    // PUT settings is partial: perRoleMemory alone leaves the clock as it is.
    await t.http('PUT', '/v1/campaigns/clock-wall/settings', { perRoleMemory: true });
    expect((await c.campaign()).settings).toEqual({ perRoleMemory: true, clock: 'wall' });
    await t.http('PUT', '/v1/campaigns/clock-wall/settings', { clock: 'none' });
    const none = (await c.context('?agent=dm&budget=200000&format=text')).text;
    expect(recentHeaders(none)).toEqual(['### round 1 · The Inn', '### round 2 · The Inn']);
    expect(none).not.toMatch(/1247|March|Flood| — /);
    expect((await c.context('?agent=dm&include=location&format=text')).text).toMatch(
      /^## Recent Location Memory\n- At The Inn: /,
    );
  });

  it('bad storyTime is 400 and appends nothing: over 80 characters, a newline, empty; a bad clock is 400', async () => {
    const c = scenario(t, 'clock-bad');
    await c.create('Bad');
    await c.location('inn', 'The Inn');
    const before = (await c.campaign()).version;
    for (const storyTime of ['x'.repeat(81), 'Day 3\nof Frostmoon', '', '   ']) {
      const say = await t.http('POST', '/v1/campaigns/clock-bad/messages', {
        messages: [{ role: 'dm', content: 'Hello.', storyTime }],
      });
      expect([say.status, say.headers.get('content-type')]).toEqual([400, expect.stringMatching(/problem\+json/)]);
      const move = await t.http('POST', '/v1/campaigns/clock-bad/commands/change-location', {
        toLocationId: 'inn',
        storyTime,
      });
      expect(move.status).toBe(400);
    }
    expect((await t.http('PUT', '/v1/campaigns/clock-bad/settings', { clock: 'sundial' })).status).toBe(400);
    expect((await t.http('PUT', '/v1/campaigns/clock-bad/settings', {})).status).toBe(400);
    expect((await c.campaign()).version).toBe(before);
    // 80 characters on one line is fine.
    const ok = await t.http('POST', '/v1/campaigns/clock-bad/commands/change-location', {
      toLocationId: 'inn',
      storyTime: 'y'.repeat(80),
    });
    expect(ok.status).toBe(202);
  });
});
