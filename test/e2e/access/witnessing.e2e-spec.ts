import { RecordingSummarizer } from '../../support/recording-summarizer';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(60_000);

/** Who knows what (DESIGN §8): witnessing decided when a message is recorded, from the events so far. */
describe('witness-scoped contexts', () => {
  let t: TestApp;
  const summarizer = new RecordingSummarizer('echo');
  const s = () => scenario(t, 'inn');
  const ctx = async (query: string) => {
    const res = await s().context(`${query}&format=text&budget=200000`);
    expect(res.status).toBe(200);
    return res.text;
  };

  beforeAll(async () => {
    t = await startTestApp({ summarizer });
    await s().create('Secrets of the Inn', { perRoleMemory: true });
    await s().location('tavern', 'The Rusty Anchor');
    await s().location('road', 'The King’s Road');
    await s().npc('mira', 'Mira', 'tavern', ['the barkeep']);
    await s().npc('jonas', 'Jonas', 'road');
    for (const [id, name] of [
      ['aria', 'Aria'],
      ['brannoc', 'Brannoc'],
    ])
      await t.http('PUT', `/v1/campaigns/inn/players/${id}`, { name });
    await s().move('tavern');
    await s().say(
      { role: 'dm', content: 'Mira leans over the bar and tells the party about the hidden vault beneath the cellar.' },
      { role: 'player', speaker: 'Aria', content: 'Aria asks Mira how anyone could open such a vault.' },
      {
        role: 'dm',
        content: 'Only Aria notices the key-shaped scar on the barkeep’s wrist.',
        visibility: 'private',
        audience: ['aria'],
      },
      { role: 'dm', content: 'Note for the DM: the vault holds the stolen Sunstone.', visibility: 'dm' },
      { role: 'player', speaker: 'Brannoc', content: 'Brannoc orders another ale and listens.' },
    );
    await s().npc('jonas', 'Jonas', 'tavern'); // arrives after the conversation
    await s().say({
      role: 'npc',
      speaker: 'Jonas',
      content: 'Jonas stamps in from the road, shakes off the rain and asks what he missed.',
    });
    await s().command('end-round');
    await t.http('PUT', '/v1/campaigns/inn/players/cass', { name: 'Cass' }); // joins in round 2
    for (let round = 2; round <= 5; round++) {
      await s().say(
        { role: 'dm', content: `Round ${round}: rain drums on the roof of the inn.` },
        { role: 'player', speaker: 'Cass', content: `Cass sharpens her dagger by the hearth in round ${round}.` },
      );
      await s().command('end-round');
    }
    await s().move('road');
    await s().settled();
  });
  afterAll(async () => t.close());

  it('a secret whispered to player A and a dm-only note never reach player B: not in context, recall or per-role summary', async () => {
    const b = await ctx('?agent=player&viewer=brannoc&query=scar%20wrist%20Sunstone%20vault%20Mira');
    expect(b).not.toMatch(/scar|Sunstone/);
    expect(b).toContain('## Recalled\n### round 1\n'); // the server filled `at`: no date (§8 story time)
    expect(b).toContain('the hidden vault beneath the cellar'); // public, and Brannoc was there
    expect(b).toMatch(/## Previously\n.*Brannoc orders another ale/);
    expect(b).not.toContain('Memory ('); // the tavern's memories were summarized from the secrets too

    const a = await ctx('?agent=player&viewer=aria&query=scar%20wrist%20Sunstone%20vault%20Mira');
    expect(a).toContain('key-shaped scar');
    expect(a).not.toContain('Sunstone');
  });

  it('a recalled statement brings the next message only to viewers who witnessed it', async () => {
    // "Aria asks Mira…" is a statement (no "?"): the message after it comes along as its own, lower-ranked candidate.
    const recalled = async (viewer: string) => {
      const res = await s().context(`?agent=player&viewer=${viewer}&query=anyone%20open&budget=200000`);
      expect(res.status).toBe(200);
      return res.body.sections.find((x: any) => x.key === 'recall').entries.map((e: any) => [Number(e.ref), e.rank]);
    };
    // §8: ranks 2 and 3 went to the tavern's memories (public input now), dropped as duplicates of these very lines.
    expect(await recalled('aria')).toEqual([
      [1, 1],
      [2, 4],
    ]);
    expect(await recalled('brannoc')).toEqual([[1, 1]]);
  });

  it('each player’s "Previously" is summarized only from what it witnessed (N+1 calls)', async () => {
    const first = summarizer.rolling().filter((r) => r.messages.some((m) => m.index === 0));
    const inputs = Object.fromEntries(first.map((r) => [r.viewer ?? '*', r.messages.map((m) => m.index)]));
    expect(inputs).toEqual({ '*': [0, 1, 2, 3, 4, 5], aria: [0, 1, 2, 4, 5], brannoc: [0, 1, 4, 5] });
    // Cass joined in round 2: her first summary starts there.
    const cass = summarizer.rolling().filter((r) => r.viewer === 'cass');
    expect(cass.length).toBeGreaterThan(0);
    expect(cass[0].messages[0].index).toBe(6);
  });

  it('an NPC that arrived after a conversation does not remember it; one that was there does', async () => {
    const jonas = await ctx('?agent=npc&viewer=jonas&query=vault%20Mira%20scar%20missed');
    expect(jonas).not.toMatch(/hidden vault|scar|Sunstone/);
    expect(jonas).toContain('Jonas stamps in from the road');
    expect(jonas).not.toContain('## Previously'); // per-role summaries are for players
    const mira = await ctx('?agent=npc&viewer=mira&query=vault');
    expect(mira).toContain('the hidden vault beneath the cellar');
    expect(mira).not.toMatch(/scar|Sunstone/);
  });

  it('a player registered mid-campaign witnesses from its registration on', async () => {
    const cass = await ctx('?agent=player&viewer=cass&query=vault%20ale%20dagger');
    expect(cass).not.toMatch(/hidden vault|another ale/);
    expect(cass).toContain('Cass sharpens her dagger');
  });

  it('the dm context has all of it', async () => {
    const dm = await ctx('?agent=dm&query=scar%20wrist%20Sunstone%20vault%20Mira');
    expect(dm).toContain('key-shaped scar');
    expect(dm).toContain('the stolen Sunstone');
    expect(dm).toContain('the hidden vault beneath the cellar');
    // §8 no sentence twice: the tavern's memory only repeats the recalled lines above, so it is reported, not printed.
    // The text trailer counts drops per reason (§8 amended); the JSON form names them.
    expect(dm).toMatch(/dropped \d+ \([^)]*duplicate \d+/);
    const json = await s().context('?agent=dm&query=scar%20wrist%20Sunstone%20vault%20Mira&budget=200000');
    expect(json.body.dropped).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          section: 'recall',
          ref: expect.stringContaining(':location:tavern'),
          reason: 'duplicate',
        }),
      ]),
    );
    expect(dm).toContain('(private: Aria) dm: Only Aria notices');
    expect(dm).toContain('(dm only) dm: Note for the DM');
    // The narrative agent (no viewer) is not the dm: dm-only notes stay out of its messages and glossary.
    const narrative = await ctx('?include=glossary,recent,recall&query=Sunstone%20vault%20DM');
    expect(narrative).toContain('\ndm: Mira leans over the bar');
    expect(narrative).not.toContain('dm: Note for the DM');
    expect(narrative).not.toContain('Glossary — DM');
    expect(dm).toContain('## Glossary\n- DM: Note for the DM');
  });

  it('glossary terms reach only viewers who witnessed the message that coined them', async () => {
    await s().say({
      role: 'dm',
      content: 'A courier brings word of the Ember Gate.',
      visibility: 'private',
      audience: ['brannoc'],
    });
    await s().settled();
    expect((await t.http('GET', '/v1/campaigns/inn/glossary')).body.items.map((g: any) => g.term)).toContain(
      'Ember Gate',
    );
    expect(await ctx('?agent=player&viewer=brannoc&include=glossary')).toContain('- Ember Gate: ');
    expect(await ctx('?agent=player&viewer=aria&include=glossary')).not.toContain('Ember Gate');
    expect(await ctx('?agent=dm&include=glossary')).toContain('- Ember Gate: ');
  });
});
