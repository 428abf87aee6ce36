import { expectProblem } from '../../support/rejection';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(60_000);

/** Parallel writers on one campaign: no lost or duplicated events, clean 412s, idempotency under races. */
describe('concurrency and idempotency', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  const setup = async (cid: string) => {
    const s = scenario(t, cid);
    await s.create();
    await s.location('hall', 'Hall');
    await s.quest(
      'q',
      'Quest',
      Array.from({ length: 40 }, (_, i) => ({ id: `o${i}`, name: `Objective ${i}` })),
    );
    await s.move('hall');
    return s;
  };

  const allEvents = async (cid: string) => {
    const items: any[] = [];
    for (;;) {
      const page = await t.http('GET', `/v1/campaigns/${cid}/events?after=${items.length}&limit=1000`);
      items.push(...page.body.items);
      if (page.body.items.length < 1000) return items;
    }
  };

  it('32 clients without If-Match: every write lands once, with its own next versions, and the stream is gapless', async () => {
    const cid = 'crowd';
    await setup(cid);
    const start = (await t.http('GET', `/v1/campaigns/${cid}`)).body.version as number;
    type Ack = { key: string; kind: string; status: number; body: any; expect: number };
    const client = async (n: number): Promise<Ack[]> => {
      const acks: Ack[] = [];
      for (let i = 0; i < 5; i++) {
        const key = `c${n}-r${i}`;
        let res;
        let kind: string;
        let expect = 1;
        if (i === 2) {
          kind = 'location';
          res = await t.http(
            'PUT',
            `/v1/campaigns/${cid}/locations/room-${n}`,
            { name: `Room ${n}` },
            { 'idempotency-key': key },
          );
        } else if (i === 4 && n < 40) {
          kind = 'objective';
          res = await t.http(
            'POST',
            `/v1/campaigns/${cid}/commands/complete-objective`,
            { questId: 'q', objectiveId: `o${n}` },
            { 'idempotency-key': key },
          );
        } else {
          kind = 'messages';
          expect = 1 + (n % 3);
          const messages = Array.from({ length: expect }, (_, j) => ({
            role: 'player',
            speaker: `P${n}`,
            content: `${key}-m${j}`,
          }));
          res = await t.http('POST', `/v1/campaigns/${cid}/messages`, { messages }, { 'idempotency-key': key });
        }
        acks.push({ key, kind, status: res.status, body: res.body, expect });
      }
      return acks;
    };
    const acks = (await Promise.all(Array.from({ length: 32 }, (_, n) => client(n)))).flat();

    expect(acks.filter((a) => a.status >= 300)).toEqual([]);
    const events = await allEvents(cid);
    const final = (await t.http('GET', `/v1/campaigns/${cid}`)).body.version;
    expect(events.map((e) => e.version)).toEqual(Array.from({ length: final }, (_, i) => i + 1));
    expect(final - start).toBe(acks.reduce((n, a) => n + a.expect, 0));
    // Each request's events carry its key, exactly as many as it asked for, ending at the version it was told.
    const byKey = new Map<string, any[]>();
    for (const e of events)
      if (e.metadata.idempotencyKey)
        byKey.set(e.metadata.idempotencyKey, [...(byKey.get(e.metadata.idempotencyKey) ?? []), e]);
    for (const a of acks) {
      const mine = byKey.get(a.key) ?? [];
      expect([a.key, mine.length]).toEqual([a.key, a.expect]);
      expect(mine[mine.length - 1].version).toBe(a.body.version);
    }
    // Message indexes are dense and unique: nothing lost, nothing doubled.
    const messages = await t.http('GET', `/v1/campaigns/${cid}/messages?limit=1000`);
    const contents = messages.body.items.map((m: any) => m.content);
    expect(new Set(contents).size).toBe(contents.length);
    expect(messages.body.items.map((m: any) => m.index)).toEqual(contents.map((_: unknown, i: number) => i));
  });

  it('a stale If-Match is 412 VERSION_MISMATCH and appends nothing; of 12 racing writers with the same If-Match exactly one wins', async () => {
    const cid = 'optimistic';
    await setup(cid);
    const version = (await t.http('GET', `/v1/campaigns/${cid}`)).body.version as number;
    expectProblem(
      await t.http(
        'POST',
        `/v1/campaigns/${cid}/messages`,
        { messages: [{ role: 'dm', content: 'stale' }] },
        { 'if-match': String(version - 1) },
      ),
      412,
      'VERSION_MISMATCH',
    );
    expect((await t.http('GET', `/v1/campaigns/${cid}`)).body.version).toBe(version);

    const racers = await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        t.http(
          'POST',
          `/v1/campaigns/${cid}/messages`,
          { messages: [{ role: 'dm', content: `racer ${n}` }] },
          { 'if-match': `"${version}"` },
        ),
      ),
    );
    const winners = racers.filter((r) => r.status === 201);
    expect(winners).toHaveLength(1);
    for (const r of racers.filter((x) => x.status !== 201)) expectProblem(r, 412, 'VERSION_MISMATCH');
    expect((await t.http('GET', `/v1/campaigns/${cid}`)).body.version).toBe(version + 1);
    expect(winners[0].body.version).toBe(version + 1);
  });

  it('16 concurrent requests with the same Idempotency-Key append once and all get the same answer', async () => {
    const cid = 'same-key';
    await setup(cid);
    const version = (await t.http('GET', `/v1/campaigns/${cid}`)).body.version as number;
    const body = {
      messages: [
        { role: 'dm', content: 'once' },
        { role: 'dm', content: 'only once' },
      ],
    };
    const answers = await Promise.all(
      Array.from({ length: 16 }, () =>
        t.http('POST', `/v1/campaigns/${cid}/messages`, body, { 'idempotency-key': 'one-key' }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(16).fill(201));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers[0].body).toEqual({ indexes: [0, 1], version: version + 2 });
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(15);
    expect((await t.http('GET', `/v1/campaigns/${cid}`)).body.version).toBe(version + 2);
    expect((await t.http('GET', `/v1/campaigns/${cid}/messages`)).body.items.map((m: any) => m.content)).toEqual([
      'once',
      'only once',
    ]);
  });

  it('the same Idempotency-Key with different bodies at once: one lands, the others are 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const cid = 'key-clash';
    await setup(cid);
    const version = (await t.http('GET', `/v1/campaigns/${cid}`)).body.version as number;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        t.http(
          'POST',
          `/v1/campaigns/${cid}/messages`,
          { messages: [{ role: 'dm', content: `variant ${n}` }] },
          { 'idempotency-key': 'clash' },
        ),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 201)) expectProblem(a, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect((await t.http('GET', `/v1/campaigns/${cid}`)).body.version).toBe(version + 1);
  });

  it('a replay after the fact returns the first answer even when the campaign moved on', async () => {
    const cid = 'late-replay';
    const s = await setup(cid);
    const first = await t.http(
      'PUT',
      `/v1/campaigns/${cid}/locations/cellar`,
      { name: 'Cellar' },
      { 'idempotency-key': 'late' },
    );
    await s.say({ role: 'dm', content: 'time passes' });
    const again = await t.http(
      'PUT',
      `/v1/campaigns/${cid}/locations/cellar`,
      { name: 'Cellar' },
      { 'idempotency-key': 'late' },
    );
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });
});
