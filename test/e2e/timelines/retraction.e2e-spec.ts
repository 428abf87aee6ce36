import { Everything, readEverything } from '../../support/read-everything';
import { RecordingSummarizer } from '../../support/recording-summarizer';
import { scenario } from '../../support/scenario';
import { allMemories, caughtUp, tavernNight } from '../../support/timeline-scenario';
import { startTestApp, TestApp } from '../../support/test-app';

/**
 * Retraction (issue 20, DESIGN §10 "Retract"): no ghost memories. From the 202 on, no read shows a retracted message
 * or anything built from it; once the worker catches up, each affected memory, Previously and glossary term is
 * revised from exactly its surviving inputs, withdrawn, or left as the DM locked it.
 */
describe('retracting messages (swipe, regenerate, retcon)', () => {
  let t: TestApp;
  // Echo style: memories and "Previously" repeat their messages, so a retracted line inside one is visible as text.
  const summarizer = new RecordingSummarizer('echo', 'echo');
  beforeAll(async () => {
    t = await startTestApp({ summarizer });
  });
  afterAll(async () => t.close());

  const retract = (cid: string, body: unknown, headers?: Record<string, string>) =>
    t.http('POST', `/v1/campaigns/${cid}/messages/retract`, body, headers);
  const gameEvents = async (cid: string) =>
    (await t.http('GET', `/v1/campaigns/${cid}/events?limit=1000`)).body.items as any[];
  const memoryEvents = async (cid: string) =>
    (await t.http('GET', `/v1/campaigns/${cid}/events?stream=memory&limit=1000`)).body.items as any[];
  const history = async (cid: string, id: string) =>
    (await t.http('GET', `/v1/campaigns/${cid}/memories/${encodeURIComponent(id)}/history`)).body.items as any[];

  /**
   * Every read a client makes, minus the three that show the record on purpose: the event log (a retraction is a
   * story event, not an erasure), `includeRetracted=true` and a memory's history.
   */
  const servedText = (e: Everything) =>
    JSON.stringify({ ...e, events: null, history: null, messages: { ...e.messages, withRetracted: null } });

  /** A tavern with no NPC in it: its lines sit in no NPC window, so only the tavern's memory holds them. */
  const tavern = (cid: string, lines: string[]) =>
    tavernNight(
      t,
      cid,
      lines.map((content, i) => ({ role: i % 2 ? 'narrator' : 'player', content })),
      { name: 'Swipe', mira: false },
    );

  const TAVERN = [
    'Aria orders cider for the whole table.',
    'rain drums on the roof of the inn all evening.',
    'Aria asks the innkeeper for a room.',
    'a bard tunes his lute by the hearth and hums.',
    'Aria pays with three silver coins.',
  ];
  const SWIPED = TAVERN[3];

  it('withholds at once and revises the one memory that held the line from exactly its surviving inputs', async () => {
    const { s, indexes } = await tavern('swipe', TAVERN);
    await s.move('docks');
    await s.settled();
    const [memory] = (await allMemories(t, 'swipe')).filter((m) => m.scope === 'location');
    expect(memory.summary).toContain('bard');
    expect(memory).toMatchObject({ revision: 1, origin: 'model' });
    const before = (await s.campaign()).version;

    summarizer.reset();
    const gate = summarizer.hold();
    const res = await retract('swipe', { indexes: [indexes[3]], reason: 'swiped' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ version: before + 1, timeline: 1 });

    // Before the worker has done anything (every model call hangs): nothing shows the line or the memory built on it.
    const now = await readEverything(t, 'swipe');
    expect(servedText(now)).not.toContain('bard');
    expect(servedText(now)).not.toContain(memory.id);
    expect(now.messages.all.map((m: any) => m.index)).toEqual([0, 1, 2, 4]);
    expect(now.messages.withRetracted.find((m: any) => m.index === 3)).toMatchObject({
      content: SWIPED,
      retracted: { version: before + 1, reason: 'swiped' },
    });

    gate.release();
    await caughtUp(t, 'swipe');
    // One revision call, of the same scope, over exactly the messages that survive; nothing else summarized again.
    expect(summarizer.counts()).toEqual({ location: 1, npc: 0, world: 0, rolling: 0, define: 0 });
    expect(summarizer.calls[0].input.messages.map((m: any) => m.index)).toEqual([0, 1, 2, 4]);
    const [revised] = (await allMemories(t, 'swipe')).filter((m) => m.scope === 'location');
    expect(revised).toMatchObject({ id: memory.id, revision: 2, origin: 'model' });
    expect(revised.summary).not.toContain('bard');
    // DESIGN §8: the wording built from the retracted line is withdrawn in the history, with no text or inputs.
    const revisions = await history('swipe', memory.id);
    expect(revisions.map((h) => [h.revision, h.reason, h.origin, h.summary === '', h.inputIndexes])).toEqual([
      [1, 'withdrawn', 'model', true, []],
      [2, 'revised', 'model', false, [0, 1, 2, 4]],
    ]);
    expect(JSON.stringify(revisions)).not.toContain('bard');
    // As of before the retraction, the history reads as it did then.
    const historyThen = await t.http('GET', `/v1/campaigns/swipe/memories/${memory.id}/history?asOf=${before}`);
    expect(historyThen.body.items).toEqual([
      expect.objectContaining({ revision: 1, reason: 'recorded', summary: memory.summary }),
    ]);
    expect((await memoryEvents('swipe')).filter((e) => e.type === 'MemoryRevised')).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({ memoryId: memory.id, inputIndexes: [0, 1, 2, 4], revision: 2 }),
      }),
    ]);
    const usage = (await t.http('GET', '/v1/campaigns/swipe/usage')).body;
    expect(usage.byScope.find((b: any) => b.scope === 'revision')).toMatchObject({ calls: 1 });
    expect(servedText(await readEverything(t, 'swipe'))).not.toContain('bard');

    // A story event, not an erasure: as of the version before it, and in a fork there, the line is back.
    const then = await readEverything(t, 'swipe', { asOf: before });
    expect(then.messages.all.map((m: any) => m.content)).toContain(SWIPED);
    expect(then.memories.location.find((m: any) => m.id === memory.id)).toMatchObject({
      summary: memory.summary,
      revision: 1,
    });
    const fork = await t.http('POST', '/v1/campaigns/swipe/fork', { id: 'swipe-before', atVersion: before });
    expect(fork.status).toBe(201);
    await caughtUp(t, 'swipe-before');
    const forked = await readEverything(t, 'swipe-before');
    expect(forked.messages.all.map((m: any) => m.content)).toContain(SWIPED);
    expect(forked.memories.all.find((m: any) => m.id === memory.id).summary).toBe(memory.summary);
  });

  it('withdraws a memory none of whose inputs survive, with no model call', async () => {
    const { s, indexes } = await tavern('swipe-all', ['a juggler drops his torches near the stage.']);
    await s.move('docks');
    await s.settled();
    const [memory] = await allMemories(t, 'swipe-all');
    summarizer.reset();
    expect((await retract('swipe-all', { indexes })).status).toBe(202);
    await caughtUp(t, 'swipe-all');
    expect(summarizer.total()).toBe(0);
    expect(await allMemories(t, 'swipe-all')).toEqual([]);
    expect((await history('swipe-all', memory.id)).map((h) => h.reason)).toEqual(['withdrawn', 'withdrawn']);
    expect(JSON.stringify(await history('swipe-all', memory.id))).not.toContain('juggler');
    expect((await memoryEvents('swipe-all')).filter((e) => e.type === 'MemoryWithdrawn')).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ memoryId: memory.id, reason: 'retracted' }) }),
    ]);
    expect(servedText(await readEverything(t, 'swipe-all'))).not.toContain('juggler');
  });

  it('rewrites "Previously" from the last clean summary and the surviving messages it covered', async () => {
    const s = scenario(t, 'swipe-prev');
    await s.create('Previously');
    for (let round = 1; round <= 5; round++) {
      await s.say(
        {
          role: 'narrator',
          content: round === 1 ? 'a juggler drops his torches in the square.' : `day ${round} dawns grey.`,
        },
        { role: 'player', speaker: 'Aria', content: `Aria keeps watch in round ${round}.` },
        { role: 'dm', content: `the caravan rolls on through day ${round}.` },
      );
      await s.command('end-round');
    }
    await s.settled();
    const first = summarizer.rolling().filter((r) => r.messages.some((m) => m.index === 0));
    expect(first.length).toBeGreaterThan(0);
    expect((await s.context('?agent=dm&format=text')).text).toContain('juggler');

    summarizer.reset();
    const gate = summarizer.hold();
    expect((await retract('swipe-prev', { indexes: [0] })).status).toBe(202);
    // Withheld at once: no Previously built from it is served, to anyone.
    const at202 = await readEverything(t, 'swipe-prev');
    expect(servedText(at202)).not.toContain('juggler');
    gate.release();
    await caughtUp(t, 'swipe-prev');
    // One rewrite per summary that held it, from no earlier summary, over exactly the surviving covered messages.
    const rewrites = summarizer.rolling();
    expect(rewrites).toHaveLength(first.length);
    for (const r of rewrites) {
      expect(r.previousSummary).toBeNull();
      expect(r.messages.map((m) => m.index)).toEqual([1, 2]);
    }
    expect(summarizer.counts()).toMatchObject({ location: 0, npc: 0, world: 0, rolling: first.length });
    const after = await readEverything(t, 'swipe-prev');
    expect(servedText(after)).not.toContain('juggler');
    expect(after.contexts['dm plain text']).toContain('Aria keeps watch in round 1.');
  });

  it('withdraws an auto-coined term whose coining line is retracted, keeps a DM-locked one, and lets it be coined again', async () => {
    const s = scenario(t, 'swipe-terms');
    await s.create('Terms');
    await s.say(
      { role: 'dm', content: 'Beyond the hill lies the Ember Gate, sealed since the war.' },
      { role: 'dm', content: 'At dusk the Ashen Choir sings over the marsh.' },
    );
    await s.settled();
    const glossary = async () => (await t.http('GET', '/v1/campaigns/swipe-terms/glossary')).body.items as any[];
    expect((await glossary()).map((g) => g.term)).toEqual(['Ashen Choir', 'Ember Gate']);
    const lock = await t.http('PUT', `/v1/campaigns/swipe-terms/glossary/${encodeURIComponent('Ashen Choir')}`, {
      definition: 'A choir of ghosts the DM keeps.',
    });
    expect(lock.status).toBeLessThan(300);

    summarizer.reset();
    const gate = summarizer.hold();
    expect((await retract('swipe-terms', { indexes: [0, 1] })).status).toBe(202);
    expect((await glossary()).map((g) => [g.term, g.locked])).toEqual([['Ashen Choir', true]]);
    gate.release();
    await caughtUp(t, 'swipe-terms');
    expect(summarizer.counts().define).toBe(0);
    expect((await glossary()).map((g) => [g.term, g.locked])).toEqual([['Ashen Choir', true]]);
    const withdrawn = (await memoryEvents('swipe-terms')).filter((e) => e.type === 'GlossaryTermWithdrawn');
    expect(withdrawn.map((e) => e.data.term)).toEqual(['Ember Gate']);

    await s.say({ role: 'dm', content: 'Pilgrims walk toward the Ember Gate at dawn.' });
    await s.settled();
    expect((await glossary()).find((g) => g.term === 'Ember Gate')).toMatchObject({ coinedMessageIndex: 2 });
  });

  it('a memory recorded late (worker lagging) from a retracted line is withheld and revised: same result', async () => {
    const { s } = await tavern('swipe-late', ['Aria counts the chairs.', 'a bard tunes his lute by the hearth.']);
    summarizer.reset();
    const gate = summarizer.hold(['location']);
    await s.move('docks');
    await gate.reached();
    expect((await retract('swipe-late', { indexes: [1] })).status).toBe(202);
    gate.release();
    await caughtUp(t, 'swipe-late');
    const [memory] = await allMemories(t, 'swipe-late');
    expect(memory.summary).not.toContain('bard');
    expect((await history('swipe-late', memory.id)).map((h) => h.reason)).toEqual(['withdrawn', 'revised']);
    expect(JSON.stringify(await history('swipe-late', memory.id))).not.toContain('bard');
    const location = summarizer.calls.filter((c) => c.kind === 'location');
    expect(location.map((c) => c.input.messages.map((m: any) => m.index))).toEqual([[0, 1], [0]]);
    expect(servedText(await readEverything(t, 'swipe-late'))).not.toContain('bard');
  });

  it('rejects bad retractions with the §10 codes, all-or-nothing, appending nothing', async () => {
    await tavern('swipe-bad', ['Aria waves.', 'a dog barks.', 'Aria sits down.']);
    expect((await retract('swipe-bad', { indexes: [1] })).status).toBe(202);
    const events = (await gameEvents('swipe-bad')).length;
    const cases: [string, unknown, number, string][] = [
      ['swipe-bad', { indexes: [1] }, 409, 'MESSAGE_RETRACTED'],
      ['swipe-bad', { indexes: [0, 1] }, 409, 'MESSAGE_RETRACTED'],
      ['swipe-bad', { indexes: [3] }, 404, 'MESSAGE_NOT_FOUND'],
      ['swipe-bad', { indexes: [0, 99] }, 404, 'MESSAGE_NOT_FOUND'],
      ['swipe-bad', { indexes: [] }, 400, 'VALIDATION_FAILED'],
      ['swipe-bad', { indexes: [-1] }, 400, 'VALIDATION_FAILED'],
      ['swipe-bad', { indexes: [0, 0] }, 400, 'VALIDATION_FAILED'],
      ['swipe-bad', { indexes: Array.from({ length: 501 }, (_, i) => i) }, 400, 'VALIDATION_FAILED'],
      ['swipe-bad', { indexes: [0], reason: 'x'.repeat(501) }, 400, 'VALIDATION_FAILED'],
      ['swipe-bad', { indexes: [0], extra: true }, 400, 'VALIDATION_FAILED'],
      ['swipe-bad', {}, 400, 'VALIDATION_FAILED'],
      ['no-such-campaign', { indexes: [0] }, 404, 'CAMPAIGN_NOT_FOUND'],
    ];
    for (const [cid, body, status, code] of cases) {
      const r = await retract(cid, body);
      expect({ body, status: r.status, code: r.body?.code }).toEqual({ body, status, code });
      expect(r.headers.get('content-type')).toContain('application/problem+json');
    }
    expect((await gameEvents('swipe-bad')).length).toBe(events);
    const listed = (await t.http('GET', '/v1/campaigns/swipe-bad/messages')).body.items.map((m: any) => m.index);
    expect(listed).toEqual([0, 2]);
    // A stale If-Match is 412 like any write.
    const stale = await retract('swipe-bad', { indexes: [0] }, { 'if-match': '1' });
    expect(stale.status).toBe(412);
  });
});
