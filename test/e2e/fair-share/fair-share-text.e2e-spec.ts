import { hasLoneSurrogate } from '@app/common';
import { readEverything } from '../../support/read-everything';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(120_000);

/** Every string anywhere in a JSON value. */
const stringsOf = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : Array.isArray(value)
      ? value.flatMap(stringsOf)
      : value && typeof value === 'object'
        ? Object.entries(value).flatMap(([k, v]) => [k, ...stringsOf(v)])
        : [];

/**
 * Issue 29 / DESIGN §13, text work: every scope's summary converges and text is cut by grapheme. With the offline
 * summarizer (the working model of these tests), on SQLite and — under scripts/with-postgres.sh — PostgreSQL.
 */
describe('fair share: text is bounded and cut by grapheme', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('a window of six 16,000-character runs of one letter yields a memory at its first trigger', async () => {
    const s = scenario(t, 'poison-window');
    await s.create();
    await s.location('mine', 'Mine');
    await s.location('camp', 'Camp');
    await s.move('mine');
    for (const letter of 'abcdef') await s.say({ role: 'npc', speaker: 'Mira', content: letter.repeat(16_000) });
    await s.move('camp');
    await s.settled();
    const { items } = await s.memories('?scope=location');
    expect(items.map((m: { subjectId: string }) => m.subjectId)).toEqual(['mine']);
    expect((await s.campaign()).cursors.locations.mine).toBeGreaterThanOrEqual(0);
  });

  it('stores and serves no lone surrogate when summaries, definitions and recall cut emoji text', async () => {
    const s = scenario(t, 'emoji-cuts');
    await s.create();
    const emoji = (n: number) => Array.from({ length: n }, (_, i) => ['🐉', 'e\u0301', '👩‍👩‍👧'][i % 3]).join('');
    // Runs after one and after two letters: a cut at a fixed length lands inside a pair in one of them.
    for (const [at, pad] of [
      ['hall', 'x'],
      ['yard', 'xy'],
      ['gate', 'xyz'],
    ]) {
      await s.location(at, at);
      await s.move(at);
      await s.say(
        { role: 'npc', speaker: 'Mira', content: `The Ember Court ${pad}${'🐉'.repeat(5_000)}` },
        { role: 'dm', content: `${pad}${emoji(3_500)}` },
        { role: 'npc', speaker: 'Mira', content: `The Ember Court hides ${pad}${'🐉'.repeat(400)} in the Salt Vault.` },
      );
    }
    await s.location('end', 'End');
    await s.move('end');
    await s.settled();
    const served = [
      // Every read a client can make (memories, events, messages, glossary, contexts, search…), and these:
      await readEverything(t, 'emoji-cuts'),
      await s.memories(),
      (await t.http('GET', '/v1/campaigns/emoji-cuts/glossary')).body,
      (await s.context('?agent=dm&format=json&query=Ember%20Court')).body,
      (await s.context('?agent=dm&budget=300&format=json')).body,
      (await t.http('GET', '/v1/campaigns/emoji-cuts/search?q=Ember')).body,
    ];
    const texts = served.flatMap(stringsOf);
    expect((await s.memories('?scope=location')).items).toHaveLength(3);
    expect(texts.filter((x) => x.length >= 1000).length).toBeGreaterThan(3);
    expect(texts.filter(hasLoneSurrogate)).toEqual([]);
  });
});
