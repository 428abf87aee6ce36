import { RunCampaignCommand } from '@app/campaign';
import { Database, DATABASE, sql } from '@app/database';
import { EVENT_STORE } from '@app/event-store';
import { MemoryReader } from '@app/memory';
import { SearchIndexRebuilder } from '@app/recall';
import { parseQuery, SEARCH_INDEX, SearchIndex } from '@app/search';
import { CommandBus } from '@nestjs/cqrs';
import { Hold, RecordingSummarizer } from '../../support/recording-summarizer';
import { scenario } from '../../support/scenario';
import { startTestApp, TestApp } from '../../support/test-app';

/**
 * §10 retraction → revision, end to end on the real app (SQLite, and PostgreSQL under test:pg): what a retraction
 * withholds in its own transaction, and what the worker then revises, withdraws or leaves as the game master locked
 * it — with the mocked model given exactly the surviving input. The retraction goes through the command bus (the
 * runner, `decide`, the projections), as the retract route will.
 */

const CID = 'swipe';
const TAVERN = `${CID}:`;

jest.setTimeout(60_000);

describe('retraction and revision (DESIGN §10)', () => {
  let t: TestApp;
  const summarizer = new RecordingSummarizer();
  let held: Hold | null = null;
  const s = () => scenario(t, CID);
  const query = async <T>(text: string, params: unknown[] = []): Promise<T[]> =>
    (await t.app.get<Database>(DATABASE).read((m) => sql<T>(m, text, params))).rows;
  const run = (command: ConstructorParameters<typeof RunCampaignCommand>[1], cid = CID) =>
    t.app.get(CommandBus).execute(new RunCampaignCommand(cid, command));
  const retract = (indexes: number[], cid = CID) => run({ type: 'RetractMessages', indexes, reason: 'swipe' }, cid);
  const memoryEvents = async () =>
    (await t.http('GET', `/v1/campaigns/${CID}/events?stream=memory&limit=1000`)).body.items as {
      type: string;
      data: Record<string, unknown>;
    }[];

  beforeAll(async () => {
    t = await startTestApp({ summarizer, env: { HOT_ROUNDS: '1', SUMMARY_INTERVAL_ROUNDS: '1' } });
    const c = s();
    await c.create('Swipe');
    await c.location('tavern', 'Rusty Anchor');
    await c.location('docks', 'Docks');
    await c.move('tavern');
    await c.say(
      { role: 'player', speaker: 'Aria', content: 'Aria orders an ale at the bar.' },
      { role: 'dm', content: 'A hooded envoy whispers that the Geometers want the Void-Chisel.' },
      { role: 'player', speaker: 'Brannoc', content: 'Brannoc laughs and pays for the round.' },
    );
    await c.move('docks'); // the tavern's memory: messages 0–2
    await c.say({ role: 'player', speaker: 'Aria', content: 'Aria watches Cara mend the nets.' });
    await c.command('end-round'); // "Previously" over messages 0–3
    await c.move('tavern'); // the docks' memory: message 3
    await c.settled();
    // The game master locks one of the two terms message 1 coined.
    const put = await t.http('PUT', `/v1/campaigns/${CID}/glossary/Void-Chisel`, { definition: 'A blade for stone.' });
    expect(put.status).toBeLessThan(300);
    await c.settled();
  });
  afterAll(async () => t.close());

  it('before: two memories, a "Previously" per key and two coined terms, all built from the messages to retract', async () => {
    const memories = await query<{ subject_id: string; input_indexes: string; status: string }>(
      'SELECT subject_id, input_indexes, status FROM memories WHERE campaign_id = ? ORDER BY memory_version',
      [CID],
    );
    expect(memories.map((r) => [r.subject_id, JSON.parse(r.input_indexes), r.status])).toEqual([
      ['tavern', [0, 1, 2], 'active'],
      ['docks', [3], 'active'],
    ]);
    const terms = await query<{ term: string }>('SELECT term FROM glossary_terms WHERE campaign_id = ? ORDER BY term', [
      CID,
    ]);
    expect(terms.map((r) => r.term)).toEqual(expect.arrayContaining(['Geometers', 'Void-Chisel']));
    expect(summarizer.rolling().map((r) => r.messages.map((m) => m.index))).toContainEqual([0, 1, 2, 3]);
  });

  it('the retraction withholds at once what was built from the retracted messages; the worker then revises exactly the survivors', async () => {
    held = summarizer.hold(['location', 'rolling']);
    summarizer.calls.length = 0;
    const before = (await memoryEvents()).length;
    const outcome = await retract([1, 3]);
    const version: number = outcome.reply.version;

    // In the retraction's own transaction, before any model call: nothing built from 1 or 3 is live.
    const withheld = await query<{ subject_id: string; status: string; changed_version: number }>(
      'SELECT subject_id, status, changed_version FROM memories WHERE campaign_id = ? ORDER BY memory_version',
      [CID],
    );
    expect(withheld.map((r) => [r.subject_id, r.status, Number(r.changed_version)])).toEqual([
      ['tavern', 'withheld', version],
      ['docks', 'withheld', version],
    ]);
    const live = await query<{ viewer_key: string }>(
      'SELECT viewer_key FROM rolling_summaries WHERE campaign_id = ? AND withheld_version IS NULL',
      [CID],
    );
    expect(live).toEqual([]);
    const terms = await query<{ term: string; withheld_version: number | null }>(
      'SELECT term, withheld_version FROM glossary_terms WHERE campaign_id = ? AND coined_message_index = 1',
      [CID],
    );
    expect(terms.length).toBeGreaterThan(0);
    expect(terms.every((r) => Number(r.withheld_version) === version)).toBe(true);

    held?.release();
    await s().settled();

    // One revision call per affected memory, over exactly the surviving messages; none for the withdrawn one.
    const location = summarizer.calls.filter((c) => c.kind === 'location');
    expect(location.map((c) => c.input.messages.map((m: { index: number }) => m.index))).toEqual([[0, 2]]);
    expect(location[0].input.location).toEqual({ id: 'tavern', name: 'Rusty Anchor' });
    // "Previously": no base before it, the surviving messages it covered. Everyone's was written over public lines
    // only, so it was the public one too (alsoPublic): rewritten once, for both keys, as it was written.
    const rolling = summarizer.rolling();
    expect(rolling.map((r) => r.messages.map((m) => m.index))).toEqual([[0, 2]]);
    expect(rolling.every((r) => r.previousSummary === null)).toBe(true);
    expect(summarizer.calls.filter((c) => c.kind !== 'location' && c.kind !== 'rolling')).toEqual([]);

    const outcomes = (await memoryEvents()).slice(before);
    expect(outcomes.every((e) => e.data.triggerVersion === version)).toBe(true);
    expect(outcomes.map((e) => e.type).sort()).toEqual([
      'GlossaryTermWithdrawn',
      'MemoryRevised',
      'MemoryWithdrawn',
      'RollingSummaryUpdated',
    ]);
    expect(outcomes.find((e) => e.type === 'RollingSummaryUpdated')!.data).toMatchObject({ alsoPublic: true });
    const keys = await query<{ viewer_key: string }>(
      'SELECT viewer_key FROM rolling_summaries WHERE campaign_id = ? AND withheld_version IS NULL ORDER BY viewer_key',
      [CID],
    );
    expect(keys.map((r) => r.viewer_key)).toEqual(['*', 'public']);
    const revised = outcomes.find((e) => e.type === 'MemoryRevised')!.data;
    expect(revised).toMatchObject({ memoryId: expect.stringContaining(TAVERN), inputIndexes: [0, 2], revision: 2 });
    expect(outcomes.find((e) => e.type === 'MemoryWithdrawn')!.data).toMatchObject({ reason: 'retracted' });
    expect(outcomes.find((e) => e.type === 'GlossaryTermWithdrawn')!.data).toMatchObject({ term: 'Geometers' });
    expect(outcomes.filter((e) => e.type === 'RollingSummaryUpdated').every((e) => e.data.revision === true)).toBe(
      true,
    );

    const after = await query<{ subject_id: string; status: string; revision: number; summary: string }>(
      'SELECT subject_id, status, revision, summary FROM memories WHERE campaign_id = ? ORDER BY memory_version',
      [CID],
    );
    expect(after.map((r) => [r.subject_id, r.status, Number(r.revision)])).toEqual([
      ['tavern', 'active', 2],
      ['docks', 'withdrawn', 1],
    ]);
    expect(after[0].summary).toBe(revised.summary);
    // The locked term stays (withheld rows are not served; its override is), the other is withdrawn.
    const coined = await query<{ term: string; withdrawn_version: number | null }>(
      'SELECT term, withdrawn_version FROM glossary_terms WHERE campaign_id = ? AND coined_message_index = 1',
      [CID],
    );
    const withdrawn = Object.fromEntries(coined.map((r) => [r.term, r.withdrawn_version === null ? null : 1]));
    expect(withdrawn).toMatchObject({ Geometers: 1, 'Void-Chisel': null });
  });

  it('history: recorded, withheld, revised for the tavern; recorded, withheld, withdrawn for the docks', async () => {
    const history = await query<{ memory_id: string; reason: string; revision: number; search_seq: number }>(
      'SELECT memory_id, reason, revision, search_seq FROM memory_history WHERE campaign_id = ? ORDER BY memory_id, seq',
      [CID],
    );
    const byMemory = new Map<string, string[]>();
    for (const h of history) byMemory.set(h.memory_id, [...(byMemory.get(h.memory_id) ?? []), h.reason]);
    expect([...byMemory.values()].sort()).toEqual([
      ['recorded', 'withheld', 'revised'],
      ['recorded', 'withheld', 'withdrawn'],
    ]);
    // Each wording has its own full-text row: the revision's differs from the recording's.
    const tavern = history.filter((h) => h.reason !== 'withheld' && byMemory.get(h.memory_id)!.includes('revised'));
    expect(new Set(tavern.map((h) => Number(h.search_seq))).size).toBe(2);
  });

  it('usage counts the revision calls under their own scope', async () => {
    const usage = await t.http('GET', `/v1/campaigns/${CID}/usage`);
    expect(usage.status).toBe(200);
    const revision = usage.body.byScope.find((x: { scope: string }) => x.scope === 'revision');
    expect(revision).toMatchObject({ calls: 2 });
  });

  it('a later trigger finds nothing withheld: no revision call, the tavern memory goes on from its cursor', async () => {
    summarizer.calls.length = 0;
    await s().say({ role: 'player', speaker: 'Aria', content: 'Aria sips her ale.' });
    await s().move('docks');
    await s().settled();
    const location = summarizer.calls.filter((c) => c.kind === 'location');
    expect(location.map((c) => c.input.messages.map((m: { index: number }) => m.index))).toEqual([[4]]);
    const usage = await t.http('GET', `/v1/campaigns/${CID}/usage`);
    expect(usage.body.byScope.find((x: { scope: string }) => x.scope === 'revision')).toMatchObject({ calls: 2 });
  });

  it('a correction reads as written, origin dm, locked, with its history and its own search row', async () => {
    const [tavern] = await query<{ id: string }>(
      "SELECT id FROM memories WHERE campaign_id = ? AND subject_id = 'tavern' ORDER BY memory_version LIMIT 1",
      [CID],
    );
    const corrected = await run({
      type: 'CorrectMemory',
      memoryId: tavern.id,
      summary: 'Aria and Brannoc share a quiet ale at the Rusty Anchor.',
      exists: true,
    });
    const version: number = corrected.reply.version;
    const [row] = await query<{ summary: string; origin: string; locked: unknown; status: string; revision: number }>(
      'SELECT summary, origin, locked, status, revision FROM memories WHERE campaign_id = ? AND id = ?',
      [CID, tavern.id],
    );
    expect({ ...row, locked: Boolean(row.locked), revision: Number(row.revision) }).toEqual({
      summary: 'Aria and Brannoc share a quiet ale at the Rusty Anchor.',
      origin: 'dm',
      locked: true,
      status: 'active',
      revision: 3,
    });
    const history = await query<{ reason: string; origin: string; search_seq: number; valid_from: number }>(
      'SELECT reason, origin, search_seq, valid_from FROM memory_history WHERE campaign_id = ? AND memory_id = ?' +
        ' ORDER BY seq',
      [CID, tavern.id],
    );
    expect(history.map((h) => h.reason)).toEqual(['recorded', 'withheld', 'revised', 'corrected']);
    expect(history[3]).toMatchObject({ origin: 'dm' });
    expect(Number(history[3].search_seq)).toBe(2 ** 30 + version);
    expect(Number(history[3].valid_from)).toBe(version);
    const search = await t.http('GET', `/v1/campaigns/${CID}/search?q=quiet&in=memories`);
    expect(search.body.items.map((h: { ref: string }) => h.ref)).toContain(tavern.id);

    // Locked: a retraction of one of its inputs neither withholds it nor costs a revision call.
    summarizer.calls.length = 0;
    await retract([0]);
    await s().settled();
    const [still] = await query<{ status: string; summary: string }>(
      'SELECT status, summary FROM memories WHERE campaign_id = ? AND id = ?',
      [CID, tavern.id],
    );
    expect(still).toEqual({ status: 'active', summary: 'Aria and Brannoc share a quiet ale at the Rusty Anchor.' });
    expect(summarizer.calls.filter((c) => c.kind === 'location')).toEqual([]);

    // Deleted: never served again, the deletion in its history.
    await run({ type: 'DeleteMemory', memoryId: tavern.id, exists: true });
    const [gone] = await query<{ status: string }>('SELECT status FROM memories WHERE campaign_id = ? AND id = ?', [
      CID,
      tavern.id,
    ]);
    expect(gone.status).toBe('deleted');
    const reasons = await query<{ reason: string }>(
      'SELECT reason FROM memory_history WHERE campaign_id = ? AND memory_id = ? ORDER BY seq',
      [CID, tavern.id],
    );
    expect(reasons.map((h) => h.reason).pop()).toBe('deleted');
  });

  it('a search-index rebuild gives every wording (recorded, revised, corrected) its own row again', async () => {
    const db = t.app.get<Database>(DATABASE);
    const wordings = async () =>
      (
        await query<{ n: number | string }>(
          "SELECT COUNT(*) AS n FROM memory_history WHERE campaign_id = ? AND reason IN ('recorded', 'revised', 'corrected')",
          [CID],
        )
      )[0].n;
    // The index's own rows (no horizon, no served-wording filter): the test above deleted the corrected memory, so
    // no search serves its wordings any more, but their rows stay in the index (as-of reads before the deletion).
    const index = t.app.get<SearchIndex>(SEARCH_INDEX);
    const hits = async (q: string) =>
      (await index.search(CID, parseQuery(q), { in: 'memories', limit: 100 }))
        .map((h) => `${h.ref}@${JSON.stringify(h.wording)}`)
        .sort();
    const before = { quiet: await hits('quiet'), ale: await hits('ale') };
    const rebuilt = await new SearchIndexRebuilder(
      db,
      t.app.get(EVENT_STORE),
      t.app.get(SEARCH_INDEX),
      t.app.get(MemoryReader),
    ).rebuild();
    expect(rebuilt.memories).toBe(Number(await wordings()));
    expect({ quiet: await hits('quiet'), ale: await hits('ale') }).toEqual(before);
    expect(before.quiet.length).toBeGreaterThan(0);
    expect(before.ale.length).toBeGreaterThan(before.quiet.length);
  });

  it('a lagging worker: a memory recorded after its message was retracted is withheld at once, then revised', async () => {
    const id = 'lagging';
    const c = scenario(t, id);
    await c.create('Lagging');
    await c.location('tavern', 'Rusty Anchor');
    await c.location('docks', 'Docks');
    await c.move('tavern');
    await c.settled();
    held = summarizer.hold(['location', 'rolling']);
    summarizer.calls.length = 0;
    await c.say(
      { role: 'player', speaker: 'Aria', content: 'Aria asks for a room.' },
      { role: 'player', speaker: 'Aria', content: 'Aria regrets asking.' },
      { role: 'player', speaker: 'Aria', content: 'Aria goes upstairs.' },
    );
    await c.move('docks'); // the worker summarizes 0–2 as of this move, and waits on the model
    await retract([1], id); // committed while that summary is in flight
    held?.release();
    await c.settled();
    const location = summarizer.calls.filter((call) => call.kind === 'location');
    // As of its trigger the message was not retracted; the revision of the retraction then drops it.
    expect(location.map((call) => call.input.messages.map((m: { index: number }) => m.index))).toEqual([
      [0, 1, 2],
      [0, 2],
    ]);
    const [memory] = await query<{ id: string; status: string; input_indexes: string }>(
      'SELECT id, status, input_indexes FROM memories WHERE campaign_id = ?',
      [id],
    );
    expect([memory.status, JSON.parse(memory.input_indexes)]).toEqual(['active', [0, 2]]);
    const history = await query<{ reason: string }>(
      'SELECT reason FROM memory_history WHERE campaign_id = ? AND memory_id = ? ORDER BY seq',
      [id, memory.id],
    );
    expect(history.map((h) => h.reason)).toEqual(['recorded', 'withheld', 'revised']);
  });
});
