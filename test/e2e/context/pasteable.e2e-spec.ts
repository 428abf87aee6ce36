import { rebuildProjections } from '../../../scripts/rebuild-projections';
import { RecordingSummarizer } from '../../support/recording-summarizer';
import { section } from '../../support/context-text';
import { scenario } from '../../support/scenario';
import { startTestApp, tempDb, TestApp } from '../../support/test-app';

jest.setTimeout(120_000);

/** In-world time: the story's clock, nothing like the server's. */
const at = (minute: number) => `1490-05-01T18:${String(minute).padStart(2, '0')}:00.000Z`;

/**
 * Labels a line puts in front of what it says (`Mira Vell: `, `At The Gilded Goose: `), as the composer ignores them.
 */
const LABELS = /^(?:[^\s:.!?"“”()[\]][^:.!?"“”()[\]]{0,60}?:\s+)+/u;
const sentenceKey = (s: string) => s.replace(LABELS, '').toLowerCase().replace(/\s+/g, ' ').trim();
const sentences = (text: string) =>
  text
    .split(/(?<=[.!?…]["'”’)\]]*)\s+/u)
    .map(sentenceKey)
    .filter(Boolean);

/**
 * DESIGN §8 "What makes a context pasteable", driven as a game developer would: two players, an NPC with a two-word
 * name, a quest with three objectives, three locations, a whisper, a dm-only note, facts and in-world timestamps.
 */
describe('a context a game master would paste (DESIGN §8)', () => {
  let t: TestApp;
  const db = tempDb();
  const summarizer = new RecordingSummarizer();
  const s = () => scenario(t, 'gallery');
  const text = async (query: string) => {
    const res = await s().context(`${query}${query.includes('?') ? '&' : '?'}format=text`);
    expect(res.status).toBe(200);
    return res.text as string;
  };
  const json = async (query: string) => {
    const res = await s().context(query);
    expect(res.status).toBe(200);
    return res.body;
  };
  /** Keys of the sections that hold something (JSON lists empty ones too). */
  const filled = (body: any) => body.sections.filter((x: any) => x.entries.length > 0).map((x: any) => x.key);
  /** The mocked model's input of each memory: [kind, subject, indexes, visibilities]. */
  const inputs = () =>
    summarizer.calls
      .filter((c) => ['location', 'npc', 'world'].includes(c.kind))
      .map((c) => [
        c.kind,
        c.input.npc?.id ?? c.input.location?.id ?? c.input.kind,
        c.input.messages.map((m: any) => m.index),
        c.input.messages.map((m: any) => m.visibility),
      ]);

  beforeAll(async () => {
    t = await startTestApp({ summarizer, dbPath: db.path });
    await s().create('The Drowned Relic');
    await s().location('inn', 'The Gilded Goose', 'SAFE');
    await s().location('gallery', 'The Sunken Gallery', 'HIGH');
    await s().location('road', 'The North Road');
    await s().npc('mira', 'Mira Vell', 'inn');
    await s().npc('warden', 'Stone Warden', 'gallery');
    await t.http('PUT', '/v1/campaigns/gallery/players/aria', { name: 'Aria', stats: { HP: '18/20' } });
    await t.http('PUT', '/v1/campaigns/gallery/players/brannoc', { name: 'Brannoc' });
    await s().quest('relic', 'The Drowned Relic', [
      { id: 'key', name: 'Find the gallery key' },
      { id: 'enter', name: 'Enter the Sunken Gallery' },
      { id: 'return', name: 'Return the relic' },
    ]);
    await s().quest('rats', 'Rats in the Cellar', [{ id: 'rats', name: 'Clear the cellar' }]);
    await s().move('inn');
    await s().say(
      { role: 'dm', content: 'The Gilded Goose is warm and loud tonight.', at: at(0) },
      {
        role: 'player',
        speaker: 'Aria',
        content: 'I slide three silver coins across the table to Mira Vell.',
        at: at(1),
      },
      {
        role: 'npc',
        speaker: 'Mira Vell',
        content: 'The gallery key hides under the Drowned Altar, she whispers.',
        visibility: 'private',
        audience: ['aria'],
        at: at(2),
      },
      { role: 'dm', content: 'Note for the DM: Mira Vell reports to the Stone Warden.', visibility: 'dm', at: at(3) },
      {
        role: 'player',
        speaker: 'Brannoc',
        content: 'Brannoc keeps watch by the door and counts the guards.',
        at: at(4),
      },
    );
    await t.http('PUT', '/v1/campaigns/gallery/facts/relationship/mira', { value: 'Mira Vell trusts Aria' });
    await s().command('complete-objective', { questId: 'rats', objectiveId: 'rats' });
    await s().command('complete-quest', { questId: 'rats' });
    await s().command('complete-objective', { questId: 'relic', objectiveId: 'key' });
    await s().move('gallery');
    await s().say(
      { role: 'dm', content: 'Water drips from the vaulted ceiling of the Sunken Gallery.', at: at(10) },
      { role: 'player', speaker: 'Brannoc', content: 'Brannoc says the Drowned Altar must be near.', at: at(11) },
    );
    await s().command('complete-objective', { questId: 'relic', objectiveId: 'enter' });
    await s().command('update-location-state', { locationId: 'gallery', dangerLevel: 'CLEARED' });
    // A client that always sends the JSON header, with no body: read as {} (§8).
    const ended = await t.http('POST', '/v1/campaigns/gallery/commands/end-round', undefined, {
      'content-type': 'application/json',
    });
    expect(ended.status).toBeLessThan(300);
    await s().say({ role: 'dm', content: 'The Stone Warden lies still among the broken statues.', at: at(20) });
    await s().settled();
  });
  afterAll(async () => {
    await t.close();
    db.cleanup();
  });

  it('builds every memory from what its subject witnessed: public lines for places and the world, the whisper for its NPC, no dm-only line', () => {
    expect(inputs()).toEqual([
      // Objective "rats" at the inn: the public lines so far (the dm-only note 3 and the whisper 2 are left out).
      ['world', 'objective_completed', [0, 1, 4], ['public', 'public', 'public']],
      // Leaving the inn: its location memory from the public lines; Mira's from what Mira witnessed, her whisper too.
      ['location', 'inn', [0, 1, 4], ['public', 'public', 'public']],
      ['npc', 'mira', [0, 1, 2, 4], ['public', 'public', 'private', 'public']],
      ['world', 'objective_completed', [5, 6], ['public', 'public']],
    ]);
    const npc = summarizer.calls.find((c) => c.kind === 'npc')!.input;
    expect(npc.messages[2]).toMatchObject({ speaker: 'Mira Vell', visibility: 'private', audience: ['aria'] });
    const memoryCalls = summarizer.calls.filter((c) => ['location', 'npc', 'world', 'rolling'].includes(c.kind));
    expect(JSON.stringify(memoryCalls)).not.toContain('reports to the Stone Warden');
  });

  it('the dm reads the Scene, the secrets marked, round/location headers and story-time dates (text)', async () => {
    const dm = await text('?agent=dm&budget=200000');
    expect(section(dm, 'Scene')).toEqual([
      'Round 2',
      'Location: The Sunken Gallery (danger CLEARED)',
      'Present: Stone Warden',
      'Party: Aria, Brannoc',
      'Quest: The Drowned Relic — [x] Find the gallery key; [x] Enter the Sunken Gallery; [ ] Return the relic',
      'Completed quest: Rats in the Cellar',
    ]);
    expect(section(dm, 'Recent Messages')).toEqual([
      '### round 1 · The Gilded Goose · 1 May 1490',
      '[0] dm: The Gilded Goose is warm and loud tonight.',
      '[1] Aria: I slide three silver coins across the table to Mira Vell.',
      '[2] (private: Aria) Mira Vell: The gallery key hides under the Drowned Altar, she whispers.',
      '[3] (dm only) dm: Note for the DM: Mira Vell reports to the Stone Warden.',
      '[4] Brannoc: Brannoc keeps watch by the door and counts the guards.',
      '### round 1 · The Sunken Gallery · 1 May 1490',
      '[5] dm: Water drips from the vaulted ceiling of the Sunken Gallery.',
      '[6] Brannoc: Brannoc says the Drowned Altar must be near.',
      '### round 2 · The Sunken Gallery · 1 May 1490',
      '[7] dm: The Stone Warden lies still among the broken statues.',
    ]);
    expect(section(dm, 'World State')).toEqual(['Relationship: Mira Vell trusts Aria']);
    // "The Sunken Gallery was cleared" is said: by the Scene above, and by the world memory, dated in story time.
    expect(section(dm, 'World Memory')!.join('\n')).toMatch(/^- 1 May 1490 — Objective "Enter the Sunken Gallery"/m);
    expect(section(dm, 'Glossary')).toEqual(expect.arrayContaining([expect.stringMatching(/^- Drowned Altar: /)]));
    expect(dm).not.toContain('Not logged in');
  });

  it('each player reads the party’s scene and only what it witnessed; one dm-only note hides no memory (text)', async () => {
    const aria = await text('?agent=player&viewer=aria&budget=200000');
    const brannoc = await text('?agent=player&viewer=brannoc&budget=200000');
    for (const [p, name] of [
      [aria, 'Aria'],
      [brannoc, 'Brannoc'],
    ]) {
      // §8 amended: a viewer's Scene opens with whose view it is.
      expect(section(p, 'Scene')!.slice(0, 3)).toEqual([
        `You are ${name} (player).`,
        'Round 2',
        'Location: The Sunken Gallery (danger CLEARED)',
      ]);
      expect(p).not.toContain('reports to the Stone Warden');
      expect(p).not.toContain('(dm only)');
      expect(p).not.toContain('Not logged in');
      // The world memory of the inn's public lines reaches both players.
      expect(section(p, 'World Memory')!.length).toBe(2);
    }
    expect(aria).toMatch(/^HUD: HP 18\/20$/m);
    // §8 amended: the whisper is marked in Aria's own view too, so her model knows it is a secret.
    expect(aria).toContain('(private: Aria) Mira Vell: The gallery key hides under the Drowned Altar, she whispers.');
    // §8 "A viewer's context shows no holes": no message numbers at all (the hidden dm note was [3]).
    for (const p of [aria, brannoc]) expect(p).not.toMatch(/\[\d+\]/);
    expect(brannoc).not.toContain('gallery key hides');
    // A term whispered to Aria, then said in public where Brannoc stood: both know it. Brannoc's definition comes from
    // Brannoc's own words, not from the whisper — and being his whole line, which his Recent Messages print, it is
    // reported `duplicate` rather than printed twice (§8 amended: a definition repeats nothing).
    expect(section(aria, 'Glossary')).toEqual(expect.arrayContaining([expect.stringMatching(/^- Drowned Altar: /)]));
    const brannocJson = await json('?agent=player&viewer=brannoc&budget=200000');
    expect(brannocJson.dropped).toContainEqual(
      expect.objectContaining({ section: 'glossary', ref: 'Drowned Altar', reason: 'duplicate' }),
    );
    expect(brannoc.match(/Brannoc says the Drowned Altar must be near/g)).toHaveLength(1);
  });

  it('the NPC reads its own scene and its own whisper, never the dm note (text and JSON)', async () => {
    const mira = await text('?agent=npc&viewer=mira&budget=200000');
    expect(section(mira, 'Scene')).toEqual([
      'You are Mira Vell (npc).',
      'Round 2',
      'Location: The Gilded Goose (danger SAFE)',
      'Quest: The Drowned Relic — [x] Find the gallery key; [x] Enter the Sunken Gallery; [ ] Return the relic',
      'Completed quest: Rats in the Cellar',
    ]);
    expect(section(mira, 'Recent Messages')).toEqual([
      '### round 1 · The Gilded Goose · 1 May 1490',
      'dm: The Gilded Goose is warm and loud tonight.',
      'Aria: I slide three silver coins across the table to Mira Vell.',
      '(private: Aria) Mira Vell: The gallery key hides under the Drowned Altar, she whispers.',
      'Brannoc: Brannoc keeps watch by the door and counts the guards.',
    ]);
    const body = await json('?agent=npc&viewer=mira&budget=200000');
    expect(filled(body)).toEqual(['glossary', 'digest', 'scene', 'world', 'recent']);
    expect(body.sections.find((x: any) => x.key === 'scene').entries.map((e: any) => e.ref)).toEqual([
      'viewer',
      'round',
      'location:inn',
      'quest:relic',
      'completed:rats',
    ]);
    expect(JSON.stringify(body)).not.toContain('reports to the Stone Warden');
  });

  it('JSON: the presets carry the Scene after the digest; entries carry no internal fields', async () => {
    const dm = await json('?agent=dm&budget=200000');
    expect(dm.sections.map((x: any) => x.key)).toEqual([
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
    expect(filled(dm)).toEqual(['glossary', 'digest', 'scene', 'world', 'recent']);
    const recent = dm.sections.find((x: any) => x.key === 'recent').entries;
    expect(recent[2]).toEqual({
      ref: '2',
      createdAt: at(2),
      group: 'round 1 · The Gilded Goose · 1 May 1490',
      text: '[2] (private: Aria) Mira Vell: The gallery key hides under the Drowned Altar, she whispers.',
      tokens: expect.any(Number),
    });
    const npc = dm.sections.find((x: any) => x.key === 'npc');
    expect(npc.entries).toEqual([]); // Mira is not in the gallery
    // §8 public view: the narrative agent without a viewer sees no secret and no memory built from one.
    const narrative = await text('?include=location,npc,world,recent,glossary&budget=200000');
    expect(narrative).not.toMatch(/gallery key hides|reports to the Stone Warden|\(private|\(dm only\)/);
    expect(narrative).toContain('[1] Aria: I slide three silver coins');
    // A campaign without accounts has no Current Game State section.
    const agent = await json('?agent=agent');
    expect(agent.sections.map((x: any) => x.key)).toEqual(['digest', 'recent']);
  });

  it('a budget sweep 50 → 4000: Scene never goes, the newest 4 messages go after every memory; used + Σ dropped adds up exactly', async () => {
    for (const budget of [50, 100, 150, 200, 250, 300, 400, 500, 700, 1000, 1500, 2000, 3000, 4000])
      for (const query of ['', '&query=altar%20coins']) {
        // Tokens before fitting: the same context with room for everything (its own drops — compaction, repeated
        // sentences — aside), plus the Recall hits Recent Messages holds: they compete in Recall until the budget is
        // met,
        // then leave it as `duplicate` drops, which therefore depend on the budget.
        const heldByRecent = (d: any) => d.section === 'recall' && d.reason === 'duplicate';
        const full = await json(`?agent=dm&budget=200000${query}`);
        const key = (d: any) => `${d.section}#${d.ref}`;
        const tokensOf = (ds: any[]) => ds.reduce((n: number, d: any) => n + d.tokens, 0);
        const selfDropped = new Set(full.dropped.filter((d: any) => !heldByRecent(d)).map(key));
        // `used` counts the trailer (§8 amended), whose length varies with the numbers it prints.
        const before = full.tokens.used - full.tokens.trailer + tokensOf(full.dropped.filter(heldByRecent));
        const c = await json(`?agent=dm&budget=${budget}${query}`);
        const byBudget = c.dropped.filter((d: any) => !selfDropped.has(key(d)));
        expect([budget, c.tokens.used - c.tokens.trailer + tokensOf(byBudget)]).toEqual([budget, before]);
        expect(c.sections.find((x: any) => x.key === 'scene').entries.length).toBeGreaterThan(0);
        const recent = c.sections.find((x: any) => x.key === 'recent')?.entries ?? [];
        const memories = c.sections
          .filter((x: any) => ['location', 'npc', 'world'].includes(x.key))
          .flatMap((x: any) => x.entries);
        const lostMemory = byBudget.some(
          (d: any) => ['location', 'npc', 'world', 'recall'].includes(d.section) && d.reason === 'budget',
        );
        // A memory goes only once Recent Messages is down to its newest 4; one of those goes only once no memory is
        // left.
        if (lostMemory)
          expect(recent.map((e: any) => e.ref)).toEqual(['4', '5', '6', '7'].slice(4 - Math.min(4, recent.length)));
        if (recent.length < 4) expect(memories).toEqual([]);
        if (!c.overBudget) expect(c.tokens.used).toBeLessThanOrEqual(budget);
      }
    // The smallest budget still holds the scene (overBudget says so) and never cuts a message.
    const tiny = await json('?agent=dm&budget=50&query=gallery%20key');
    expect(tiny.sections.find((x: any) => x.key === 'scene').entries.length).toBe(6);
  });

  it('no sentence twice in any preset; a wholly repeated entry is reported `duplicate`; messages are never cut', async () => {
    for (const q of [
      '?agent=dm',
      '?agent=player&viewer=aria',
      '?agent=player&viewer=brannoc',
      '?agent=npc&viewer=mira',
      '?agent=dm&query=coins%20key%20altar',
    ]) {
      const c = await json(`${q}&budget=200000`);
      const seen = new Map<string, string>();
      for (const sec of c.sections) {
        if (sec.key === 'recent') continue; // messages are kept whole; the rule removes repeats from summaries
        for (const e of sec.entries) {
          const line = e.text
            .replace(/^- (?:\[[^\]]*\] Memory \([^)]*\): |[^—]{1,90} — )/u, '')
            .replace(/^\[\d+\] /, '');
          for (const key of sentences(line)) {
            expect([q, key, seen.get(key)]).toEqual([q, key, undefined]);
            seen.set(key, `${sec.key}#${e.ref}`);
          }
        }
      }
      const recent = c.sections.find((x: any) => x.key === 'recent');
      for (const e of recent?.entries ?? []) expect(e.text).toMatch(/[.!?]$/);
    }
    // The inn's location memory, recalled, only repeats lines the context holds: reported, not printed.
    const dm = await json('?agent=dm&budget=200000&query=coins%20guards');
    expect(dm.dropped).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          section: 'recall',
          ref: expect.stringContaining(':location:inn'),
          reason: 'duplicate',
        }),
      ]),
    );
    // The world memory of the inn kept its event, its repeated lines removed.
    expect(dm.sections.find((x: any) => x.key === 'world').entries[0].text).toBe(
      '- 1 May 1490 — Objective "Clear the cellar" of quest "Rats in the Cellar" completed.',
    );
  });

  it('serves the same bytes after a restart and after `npm run rebuild` (rebuildProjections)', async () => {
    const queries = [
      '?agent=dm',
      '?agent=player&viewer=aria&budget=300',
      '?agent=npc&viewer=mira',
      '?include=world,recent',
      '?agent=dm&query=altar&budget=600',
    ];
    const read = async () => Promise.all(queries.map((q) => text(q)));
    const before = await read();
    const config = t.config;
    await t.close();
    t = await startTestApp({ summarizer, dbPath: db.path });
    expect(await read()).toEqual(before);
    await t.close();
    await rebuildProjections(config);
    t = await startTestApp({ summarizer, dbPath: db.path });
    expect(await read()).toEqual(before);
  });
});

describe('a term coined in a whisper (DESIGN §8 glossary)', () => {
  let t: TestApp;
  const s = () => scenario(t, 'choir');
  const glossary = async (viewer: string) => {
    const res = await s().context(`?agent=player&viewer=${viewer}&include=glossary`);
    expect(res.status).toBe(200);
    return (res.body.sections[0]?.entries ?? []).map((e: any) => e.ref);
  };

  beforeAll(async () => {
    t = await startTestApp({ summarizer: new RecordingSummarizer() });
    await s().create('Choir');
    await s().location('hall', 'The Hall');
    await s().npc('sel', 'Sel Oran', 'hall');
    for (const [id, name] of [
      ['aria', 'Aria'],
      ['brannoc', 'Brannoc'],
    ])
      await t.http('PUT', `/v1/campaigns/choir/players/${id}`, { name });
    await s().move('hall');
  });
  afterAll(async () => t.close());

  it('reaches the other player once it is said in public where that player stands, not before', async () => {
    await s().say({
      role: 'npc',
      speaker: 'Sel Oran',
      content: 'Only you should know of the Glass Choir, Sel breathes.',
      visibility: 'private',
      audience: ['aria'],
    });
    await s().settled();
    expect(await glossary('aria')).toEqual(['Glass Choir']);
    expect(await glossary('brannoc')).toEqual([]);
    expect((await s().context('?include=glossary')).body.sections[0].entries).toEqual([]); // the public view neither
    await s().say({ role: 'player', speaker: 'Aria', content: 'Friends, what do you know of the glass choir?' });
    await s().settled();
    expect(await glossary('brannoc')).toEqual(['Glass Choir']);
    expect((await s().context('?include=glossary')).body.sections[0].entries.map((e: any) => e.ref)).toEqual([
      'Glass Choir',
    ]);
  });
});

describe('the public view: a context without a viewer (DESIGN §8 "Who may read what")', () => {
  let t: TestApp;
  const summarizer = new RecordingSummarizer('echo');
  const s = (id: string) => scenario(t, id);
  const text = async (id: string, query: string) => {
    const res = await s(id).context(`${query}&format=text&budget=200000`);
    expect(res.status).toBe(200);
    return res.text as string;
  };

  beforeAll(async () => {
    // Every ended round rewrites "Previously" over what is no longer hot (one hot round).
    t = await startTestApp({ summarizer, env: { SUMMARY_INTERVAL_ROUNDS: '1', HOT_ROUNDS: '1' } });
    for (const id of ['pub', 'open']) {
      await s(id).create('Public view');
      await s(id).location('hall', 'The Hall');
      await s(id).npc('sel', 'Sel Oran', 'hall');
      await t.http('PUT', `/v1/campaigns/${id}/players/aria`, { name: 'Aria' });
      await s(id).move('hall');
    }
    await s('pub').say(
      { role: 'dm', content: 'Torches gutter in the hall.' },
      {
        role: 'npc',
        speaker: 'Sel Oran',
        content: 'The password is heliotrope, Sel whispers.',
        visibility: 'private',
        audience: ['aria'],
      },
      { role: 'dm', content: 'Sel is a traitor, the dm notes: moonwort.', visibility: 'dm' },
    );
    await s('pub').command('end-round');
    await s('pub').say({ role: 'player', speaker: 'Aria', content: 'Aria nods at the guards.' });
    await s('pub').command('end-round');
    await s('pub').say(
      { role: 'player', speaker: 'Aria', content: 'Aria waits by the door.' },
      { role: 'dm', content: 'A dm-only aside: heliotrope.', visibility: 'dm' },
    );
    await s('open').say(
      { role: 'dm', content: 'Rain on the hall roof.' },
      { role: 'player', speaker: 'Aria', content: 'Aria shakes out her cloak.' },
    );
    await s('open').command('end-round');
    for (const id of ['pub', 'open']) await s(id).settled();
  });
  afterAll(async () => t.close());

  it('narrative and agent contexts without a viewer show public messages, memories, glossary and Previously only', async () => {
    const narrative = await text(
      'pub',
      '?include=glossary,previously,location,npc,world,recall,recent&query=heliotrope%20moonwort%20password%20traitor',
    );
    const agent = await text('pub', '?agent=agent&query=heliotrope');
    for (const out of [narrative, agent]) {
      expect(out).not.toMatch(/heliotrope|moonwort|traitor|password/i);
      expect(out).toContain('Aria waits by the door.');
    }
    expect(narrative).toContain('## Previously\nTorches gutter in the hall. Aria nods at the guards.\n');
    const dm = await text('pub', '?agent=dm&query=heliotrope%20moonwort');
    // The dm reads it all, marked (its Previously keeps only what Recall does not already say).
    expect(dm).toContain('(private: Aria) Sel Oran: The password is heliotrope, Sel whispers.');
    expect(dm).toContain('(dm only) dm: Sel is a traitor, the dm notes: moonwort.');
  });

  it('keeps two rolling summaries without perRoleMemory: the dm’s over everything, the public one over public lines', () => {
    const rolling = summarizer.rolling().filter((r) => r.campaignId === 'pub');
    expect(
      rolling.map((r) => [r.publicOnly === true, r.messages.map((m) => m.index), r.messages.map((m) => m.visibility)]),
    ).toEqual([
      [false, [0, 1, 2], ['public', 'private', 'dm']],
      [true, [0], ['public']],
      [false, [3], ['public']],
      [true, [3], ['public']],
    ]);
  });

  it('one call serves both while every line was public (the public summary is the dm’s)', async () => {
    expect(summarizer.rolling().filter((r) => r.campaignId === 'open')).toHaveLength(1);
    const pub = await text('open', '?include=previously');
    const dm = await text('open', '?agent=dm&include=previously');
    expect(pub).toContain('## Previously\nRain on the hall roof. Aria shakes out her cloak.');
    expect(dm.split('\n').slice(0, 2)).toEqual(pub.split('\n').slice(0, 2));
  });
});
