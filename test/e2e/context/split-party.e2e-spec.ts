import { section } from '../../support/context-text';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(120_000);

describe('split parties (DESIGN §8 amended)', () => {
  let t: TestApp;
  const s = () => scenario(t, 'split');
  const text = async (query: string) => (await s().context(`${query}&budget=200000&format=text`)).text as string;
  const memoriesOf = async (scope: string, subject: string) =>
    (await s().memories(`?scope=${scope}&subjectId=${subject}`)).items ?? [];

  beforeAll(async () => {
    t = await startTestApp();
    await s().create('Split');
    await s().location('hall', 'The Lantern Hall');
    await s().location('crypt', 'The Old Crypt');
    await s().location('tower', 'The Bell Tower');
    await s().npc('oswin', 'Oswin the Keeper', 'hall');
    await t.http('PUT', '/v1/campaigns/split/players/lyra', { name: 'Lyra' });
    await t.http('PUT', '/v1/campaigns/split/players/kael', { name: 'Kael' });
    await s().move('hall');
    await s().say({ role: 'dm', content: 'Both stand in the Lantern Hall.' });
    // Kael goes down alone; Lyra stays with Oswin.
    await s().command('change-location', { toLocationId: 'crypt', players: ['kael'] });
    await s().say(
      { role: 'player', speaker: 'Kael', content: 'Kael lifts the crypt lid.' },
      { role: 'player', speaker: 'Lyra', content: 'Lyra asks Oswin about the bells.' },
      { role: 'npc', speaker: 'Oswin the Keeper', content: 'Oswin says the bells rang at midnight.' },
    );
    await s().settled();
  });

  afterAll(async () => {
    await t.close();
  });

  it('each player witnesses by its own location; a message is where its speaker is', async () => {
    const lyra = await text('?agent=player&viewer=lyra');
    const kael = await text('?agent=player&viewer=kael');
    expect(lyra).toContain('Lyra asks Oswin about the bells.');
    expect(lyra).toContain('Oswin says the bells rang at midnight.');
    expect(lyra).not.toContain('crypt lid');
    expect(kael).toContain('Kael lifts the crypt lid.');
    expect(kael).not.toMatch(/about the bells|rang at midnight/);
    const items = (await t.http('GET', '/v1/campaigns/split/messages')).body.items;
    expect(items.map((m: any) => m.locationId)).toEqual(['hall', 'crypt', 'hall', 'hall']);
  });

  it('a Scene per viewer; the dm’s says where everyone is', async () => {
    const scene = async (q: string) => section(await text(q), 'Scene')!;
    expect(await scene('?agent=player&viewer=lyra')).toEqual([
      'You are Lyra (player).',
      'Round 1',
      'Location: The Lantern Hall',
      'Present: Oswin the Keeper',
      'Party: Lyra',
    ]);
    expect(await scene('?agent=player&viewer=kael')).toEqual([
      'You are Kael (player).',
      'Round 1',
      'Location: The Old Crypt',
      'Party: Kael',
    ]);
    const dm = await scene('?agent=dm');
    expect(dm).toEqual(expect.arrayContaining(['Players at The Lantern Hall: Lyra', 'Players at The Old Crypt: Kael']));
    expect((await t.http('GET', '/v1/campaigns/split/players/kael')).body.locationId).toBe('crypt');
  });

  it('the hall’s location memory waits for its last player to leave; NPC memories trigger as players leave', async () => {
    expect(await memoriesOf('location', 'hall')).toEqual([]);
    await s().command('change-location', { toLocationId: 'crypt', players: ['lyra'] });
    await s().settled();
    const hall = await memoriesOf('location', 'hall');
    expect(hall).toHaveLength(1);
    expect(hall[0].summary).toContain('bells');
    expect(hall[0].summary).not.toContain('crypt lid');
    expect((await memoriesOf('npc', 'oswin')).length).toBe(1);
    // A player placed apart with PUT …/players/:id.
    const put = await t.http('PUT', '/v1/campaigns/split/players/lyra', { name: 'Lyra', locationId: 'tower' });
    expect(put.status).toBe(200);
    expect(put.body.player.locationId).toBe('tower');
    expect(
      (await t.http('PUT', '/v1/campaigns/split/players/lyra', { name: 'Lyra', locationId: 'nowhere' })).status,
    ).toBe(404);
  });

  it('without `players` the whole party moves as before: everyone rejoins and witnesses together', async () => {
    await s().move('tower');
    const players = (await t.http('GET', '/v1/campaigns/split/players')).body.items;
    expect(players.map((p: any) => p.locationId)).toEqual([undefined, undefined]);
    await s().say({ role: 'dm', content: 'The bells of the Bell Tower are silent.' });
    for (const viewer of ['lyra', 'kael'])
      expect(await text(`?agent=player&viewer=${viewer}`)).toContain('bells of the Bell Tower');
    const dm = (await text('?agent=dm')).split('\n## ')[0];
    expect(dm).not.toContain('Players at');
    expect(dm).toContain('Party: Kael, Lyra');
    // Bad moves are 4xx and append nothing.
    const before = (await s().campaign()).version;
    for (const [body, status] of [
      [{ toLocationId: 'hall', players: ['ghost'] }, 404],
      [{ toLocationId: 'hall', players: [] }, 400],
      [{ toLocationId: 'tower', players: ['lyra'] }, 409],
    ] as const)
      expect((await t.http('POST', '/v1/campaigns/split/commands/change-location', body)).status).toBe(status);
    expect((await s().campaign()).version).toBe(before);
  });
});
