import { scenario } from '../support/scenario';
import { idsOf, openStream, reached } from '../support/sse';
import { startTestApp, TestApp } from '../support/test-app';
import { describePg } from './describe-pg';

jest.setTimeout(60_000);

describePg('the event stream on two replicas of one PostgreSQL database', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    // B polls only once a minute: what reaches its listener within seconds came by LISTEN/NOTIFY.
    a = await startTestApp({ env: { STREAM_POLL_MS: '60000' } });
    b = await startTestApp({ dbPath: a.dbPath, env: { STREAM_POLL_MS: '60000' } });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('shows a listener on replica B a write made on replica A at once, in order, and resumes on either', async () => {
    const onA = scenario(a, 'pg-stream');
    await onA.create('Two replicas');
    const listener = openStream(b.url, 'pg-stream', { after: '1:game:1' });
    await onA.location('tavern', 'Rusty Anchor');
    const started = Date.now();
    await listener.until((ev) => idsOf(ev).includes('1:game:2'), 5000);
    expect(Date.now() - started).toBeLessThan(5000);
    await onA.say(
      { role: 'player', speaker: 'Aria', content: 'One' },
      { role: 'player', speaker: 'Aria', content: 'Two' },
    );
    await onA.move('tavern');
    await listener.until((ev) => idsOf(ev).includes('1:game:5'), 5000);
    listener.close();
    expect(idsOf(listener.events).slice(0, 4)).toEqual(['1:game:2', '1:game:3', '1:game:4', '1:game:5']);

    // Memory outcomes of A's worker (or B's) and writes on both replicas: one gap-free sequence wherever it is read.
    const onB = scenario(b, 'pg-stream');
    await onB.say({ role: 'player', speaker: 'Aria', content: 'Three, sent to B' });
    await onA.location('docks', 'Docks');
    await onB.move('docks');
    await onA.settled();
    const c = await onA.campaign();
    const memory = (await a.http('GET', '/v1/campaigns/pg-stream/events?stream=memory&limit=1000')).body.items.length;
    expect(memory).toBeGreaterThan(0);
    const fromA = openStream(a.url, 'pg-stream');
    const full = idsOf(await fromA.until(reached(c.version, memory)));
    fromA.close();
    const mid = full[Math.floor(full.length / 2)];
    const fromB = openStream(b.url, 'pg-stream', { after: mid });
    const rest = idsOf(await fromB.until((ev) => idsOf(ev).length >= full.length - full.indexOf(mid) - 1));
    fromB.close();
    expect(rest).toEqual(full.slice(full.indexOf(mid) + 1));
  });
});
