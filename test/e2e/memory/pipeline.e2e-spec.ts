import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

describe('memory pipeline over HTTP (local summarizer)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('records a location memory when the party leaves, and serves it as context', async () => {
    const s = scenario(t, 'smoke');
    await s.create();
    await s.location('tavern', 'Rusty Anchor');
    await s.location('docks', 'Docks');
    await s.move('tavern');
    await s.say({ role: 'player', speaker: 'Aria', content: 'I pay the barkeep 5 gold for the map.' });
    await s.move('docks');
    await s.move('tavern');
    await s.settled();
    const res = await s.context('?format=text');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/^## Recent Location Memory\n- round 1 — .*5 gold/m);
  });
});
