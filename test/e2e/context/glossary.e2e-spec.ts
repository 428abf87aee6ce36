import { MAX_NEW_TERMS_PER_MESSAGE } from '@app/memory';
import { RecordingSummarizer } from '../../support/recording-summarizer';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

describe('glossary (DESIGN §8)', () => {
  let t: TestApp;
  const summarizer = new RecordingSummarizer();
  beforeAll(async () => {
    t = await startTestApp({ summarizer });
  });
  afterAll(async () => t.close());

  const glossary = async (id: string) => (await t.http('GET', `/v1/campaigns/${id}/glossary`)).body.items;
  const memoryEvents = async (id: string) =>
    (await t.http('GET', `/v1/campaigns/${id}/events?stream=memory&limit=1000`)).body.items;

  it('coins terms from dm, narrator and npc messages, defines each by a short clause, and never from players or known names', async () => {
    const s = scenario(t, 'gloss');
    await s.create('Glossary');
    await s.location('keep', 'Stormwatch Keep');
    await s.npc('mira', 'Mira Stone', 'keep', ['the Warden']);
    await t.http('PUT', '/v1/campaigns/gloss/bible', {
      text: 'The Iron Council rules the north from Stormwatch Keep.',
    });
    await s.move('keep');
    await s.say(
      {
        role: 'dm',
        content:
          'A hooded envoy whispers that the Geometers want the Void-Chisel, a blade that cuts doors into stone and never dulls in any hand.',
      },
      { role: 'player', speaker: 'Aria', content: 'I ask the envoy about the Silver Lantern Guild.' },
      {
        role: 'npc',
        speaker: 'Mira Stone',
        content: 'Mira Stone says the Iron Council fears the GEOMETERS and their Probability Engine.',
      },
      { role: 'narrator', content: 'Stormwatch Keep falls silent. The Warden nods.' },
    );
    await s.settled();
    const items = await glossary('gloss');
    expect(items.map((i: any) => [i.term, i.coinedMessageIndex])).toEqual([
      ['Geometers', 0],
      ['Probability Engine', 2],
      ['Void-Chisel', 0],
    ]);
    const geometers = items.find((i: any) => i.term === 'Geometers');
    // §8 amended: the shortest clause around the first use (≤ 25 words), an apposition when the term has one — one
    // sentence coining two terms gives two different definitions, neither the whole sentence.
    expect(geometers.definition).toBe('A hooded envoy whispers that the Geometers want the Void-Chisel.');
    expect(items.find((i: any) => i.term === 'Void-Chisel').definition).toBe('A blade that cuts doors into stone.');
    for (const i of items) expect(i.definition.split(/\s+/).length).toBeLessThanOrEqual(25);
    expect(items.every((i: any) => !i.locked && !i.hidden)).toBe(true);
    const added = (await memoryEvents('gloss')).filter((e: any) => e.type === 'GlossaryTermAdded');
    expect(added).toHaveLength(3);

    // Terms are compared case-insensitively: using them again coins nothing new.
    await s.say({
      role: 'dm',
      content: 'Rumours of the geometers and the void-chisel spread; the Probability Engine hums.',
    });
    await s.settled();
    expect((await memoryEvents('gloss')).filter((e: any) => e.type === 'GlossaryTermAdded')).toHaveLength(3);

    const dm = await s.context('?agent=dm&format=text');
    expect(dm.text).toContain('## Glossary\n- Geometers: A hooded envoy whispers');
    // §8 amended, a definition repeats nothing: the Engine's is the whole sentence that coined it, which Recent Messages
    // already print, so the entry is reported `duplicate` instead of printed twice.
    expect(dm.text).toContain('\n- Void-Chisel: A blade that cuts doors into stone.\n');
    expect(dm.text).not.toContain('- Probability Engine:');
    expect(dm.text.match(/the Iron Council fears the GEOMETERS/g)).toHaveLength(1);
    const json = await s.context('?agent=dm');
    expect(json.body.dropped).toContainEqual(
      expect.objectContaining({ section: 'glossary', ref: 'Probability Engine', reason: 'duplicate' }),
    );
  });

  it('PUT sets and locks a term, DELETE hides it, and the worker never re-adds either', async () => {
    const s = scenario(t, 'gloss-dm');
    await s.create('Glossary overrides');
    await s.say({ role: 'dm', content: 'Beyond the pass lies the Ember Gate, guarded by the Ashen Choir.' });
    await s.settled();
    expect((await glossary('gloss-dm')).map((i: any) => i.term)).toEqual(['Ashen Choir', 'Ember Gate']);

    const set = await t.http('PUT', '/v1/campaigns/gloss-dm/glossary/Ember%20Gate', {
      definition: 'A sealed gate of black basalt; it opens only at midwinter.',
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      version: expect.any(Number),
      term: 'Ember Gate',
      definition: 'A sealed gate of black basalt; it opens only at midwinter.',
      locked: true,
    });
    const hide = await t.http('DELETE', '/v1/campaigns/gloss-dm/glossary/ashen%20choir');
    expect(hide.status).toBe(200);
    const predefined = await t.http('PUT', '/v1/campaigns/gloss-dm/glossary/Star%20Forge', {
      definition: 'Where the gods hammered the first swords.',
    });
    expect(predefined.status).toBe(200);

    await s.say({ role: 'dm', content: 'The Ashen Choir sings at the Ember Gate; far away the Star Forge glows.' });
    await s.settled();
    const items = await glossary('gloss-dm');
    expect(items).toEqual([
      expect.objectContaining({ term: 'Ashen Choir', hidden: true, locked: false, coinedMessageIndex: 0 }),
      expect.objectContaining({
        term: 'Ember Gate',
        definition: 'A sealed gate of black basalt; it opens only at midwinter.',
        locked: true,
        hidden: false,
      }),
      expect.objectContaining({
        term: 'Star Forge',
        definition: 'Where the gods hammered the first swords.',
        locked: true,
        coinedMessageIndex: null,
      }),
    ]);
    expect((await memoryEvents('gloss-dm')).filter((e: any) => e.type === 'GlossaryTermAdded')).toHaveLength(2);
    const text = (await s.context('?agent=dm&format=text')).text;
    expect(text).toContain(
      '## Glossary\n- Ember Gate: A sealed gate of black basalt; it opens only at midwinter.\n- Star Forge: Where the gods hammered the first swords.\n',
    );
    expect(text).not.toContain('Ashen Choir:');

    // Setting the same definition again and hiding twice append nothing.
    const v = (await s.campaign()).version;
    await t.http('PUT', '/v1/campaigns/gloss-dm/glossary/ember%20gate', {
      definition: 'A sealed gate of black basalt; it opens only at midwinter.',
    });
    await t.http('DELETE', '/v1/campaigns/gloss-dm/glossary/Ashen%20Choir');
    expect((await s.campaign()).version).toBe(v);
  });

  it('a failed definition records MemorySkipped (scope glossary) and the term is defined when next used', async () => {
    const s = scenario(t, 'gloss-fail');
    await s.create('Glossary failure');
    summarizer.failing.add('define');
    await s.say({ role: 'dm', content: 'The Moonwell Accord was signed long ago.' });
    await s.settled();
    summarizer.failing.delete('define');
    const skipped = (await memoryEvents('gloss-fail')).filter((e: any) => e.type === 'MemorySkipped');
    expect(skipped).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({
          scope: 'glossary',
          subjectId: 'Moonwell Accord',
          attempts: 2,
          sinceMessageIndex: 0,
        }),
      }),
    ]);
    expect(await glossary('gloss-fail')).toEqual([]);

    await s.say({ role: 'npc', speaker: 'Herald', content: 'Everyone honours the Moonwell Accord, even now.' });
    await s.settled();
    expect(await glossary('gloss-fail')).toEqual([
      expect.objectContaining({
        term: 'Moonwell Accord',
        coinedMessageIndex: 1,
        definition: 'Everyone honours the Moonwell Accord.',
      }),
    ]);
  });

  it('a message coins at most MAX_NEW_TERMS_PER_MESSAGE terms, the first it uses; a later use coins another (issue 18)', async () => {
    const s = scenario(t, 'gloss-cap');
    await s.create('Glossary cap');
    // 60 invented names in one message, as a roster or a hostile run of mixed-case text would carry.
    const names = Array.from(
      { length: 60 },
      (_v, i) => `Vor${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}Keth`,
    );
    const defined = () => summarizer.calls.filter((c) => c.kind === 'define').length;
    const definedBefore = defined();
    await s.say({ role: 'dm', content: `The herald reads the roll: ${names.join(', ')}.` });
    await s.settled();
    const termsOf = async () => ((await glossary('gloss-cap')) as { term: string }[]).map((i) => i.term);
    const first = await termsOf();
    expect(first).toEqual(names.slice(0, MAX_NEW_TERMS_PER_MESSAGE).sort());
    // One model call a term: the cap also bounds what one message can spend on definitions.
    expect(defined() - definedBefore).toBe(MAX_NEW_TERMS_PER_MESSAGE);
    const dm = (await s.context('?agent=dm&format=json')).body;
    expect(
      (dm.sections as { key: string; entries: unknown[] }[]).find((x) => x.key === 'glossary')?.entries,
    ).toHaveLength(MAX_NEW_TERMS_PER_MESSAGE);

    await s.say({ role: 'npc', speaker: 'Herald', content: `Only ${names[40]} answered the call.` });
    await s.settled();
    expect(await termsOf()).toEqual([...first, names[40]].sort());
  });
});
