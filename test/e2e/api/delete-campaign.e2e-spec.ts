import { DataSource } from 'typeorm';
import { readEverything } from '../../support/read-everything';
import { RecordingSummarizer } from '../../support/recording-summarizer';
import { scenario } from '../../support/scenario';
import { caughtUp } from '../../support/timeline-scenario';
import { startTestApp, TestApp } from '../../support/test-app';

/**
 * Deleting a campaign (issue 20, DESIGN §10 "Delete"): everything of it goes in one transaction, its forks are
 * untouched, a worker in flight commits nothing, a second delete is 404.
 */
describe('deleting a campaign', () => {
  let t: TestApp;
  const summarizer = new RecordingSummarizer();
  beforeAll(async () => {
    t = await startTestApp({ summarizer });
  });
  afterAll(async () => t.close());

  /**
   * Rows that still name the campaign, in every table the app maps (listed from the entity metadata, so a table
   * added later cannot be forgotten): any column equal to the id or one of its stream ids, or an idempotency
   * scope of it. `parent_id` is left out: a fork keeps naming its deleted parent.
   */
  async function leftovers(id: string): Promise<string[]> {
    const ds = t.app.get(DataSource);
    const pg = ds.options.type === 'postgres';
    const p = (n: number) => (pg ? `$${n}` : '?');
    const out: string[] = [];
    for (const meta of ds.entityMetadatas) {
      for (const col of meta.columns) {
        if (col.databaseName === 'parent_id') continue;
        const c = `CAST("${col.databaseName}" AS TEXT)`;
        const sql =
          `SELECT COUNT(*) AS n FROM "${meta.tableName}" WHERE ${c} IN (${p(1)}, ${p(2)}, ${p(3)})` +
          ` OR ${c} LIKE ${p(4)}`;
        const [row] = await ds.query(sql, [id, `campaign-${id}`, `memory-${id}`, `${id}@%`]);
        if (Number(row.n) > 0) out.push(`${meta.tableName}.${col.databaseName}: ${row.n}`);
      }
    }
    return out;
  }

  async function build(cid: string) {
    const s = scenario(t, cid);
    await s.create('Doomed');
    await s.location('tavern', 'The Gilded Tankard');
    await s.location('docks', 'Saltmarsh Docks');
    await s.npc('mira', 'Mira Stone', 'tavern');
    await t.http('PUT', `/v1/campaigns/${cid}/players/aria`, { name: 'Aria' });
    await t.http('PUT', `/v1/campaigns/${cid}/bible`, { text: 'A port town.', dmOnly: 'The harbour master lies.' });
    await t.http('PUT', `/v1/campaigns/${cid}/facts/conflict/war`, { value: 'War with the raiders' });
    await t.http('POST', `/v1/campaigns/${cid}/accounts/acc-1/login`, { agentId: 'agent-1' });
    await t.http('PUT', `/v1/campaigns/${cid}/accounts/acc-1/snapshots/get_status`, { content: { hp: 3 } });
    await s.move('tavern');
    await t.http(
      'POST',
      `/v1/campaigns/${cid}/messages`,
      {
        messages: [
          { role: 'dm', content: 'Beyond the hill lies the Ember Gate.' },
          { role: 'npc', speaker: 'Mira Stone', content: 'Mira mentions the crates.', npcIds: ['mira'] },
        ],
      },
      { 'idempotency-key': `${cid}-say-1` },
    );
    await s.move('docks');
    await s.settled();
    return s;
  }

  it('removes every row of the campaign, keeps its fork whole, and answers 404 the second time', async () => {
    await build('doomed');
    expect(await leftovers('doomed')).not.toEqual([]);
    expect((await t.http('POST', '/v1/campaigns/doomed/fork', { id: 'doomed-fork' })).status).toBe(201);
    await caughtUp(t, 'doomed-fork');
    const fork = await readEverything(t, 'doomed-fork');

    const res = await t.http('DELETE', '/v1/campaigns/doomed');
    expect(res.status).toBe(204);
    expect(await leftovers('doomed')).toEqual([]);
    expect((await t.http('GET', '/v1/campaigns/doomed')).status).toBe(404);
    const again = await t.http('DELETE', '/v1/campaigns/doomed');
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('CAMPAIGN_NOT_FOUND');
    const list = (await t.http('GET', '/v1/campaigns?limit=100')).body.items.map((c: any) => c.id);
    expect(list).toContain('doomed-fork');
    expect(list).not.toContain('doomed');

    expect(await readEverything(t, 'doomed-fork')).toEqual(fork);
    expect((fork.campaign as any).parent).toEqual({ id: 'doomed', version: expect.any(Number) });
    // The fork lives on: it takes writes and its worker runs.
    expect(
      (
        await t.http('POST', '/v1/campaigns/doomed-fork/messages', {
          messages: [{ role: 'dm', content: 'Still here.' }],
        })
      ).status,
    ).toBe(201);
    await caughtUp(t, 'doomed-fork');

    // The id is free again, and a new campaign under it starts empty (no idempotency key of the old one replays).
    expect((await t.http('POST', '/v1/campaigns', { id: 'doomed', name: 'Reborn' })).status).toBe(201);
    const replay = await t.http(
      'POST',
      '/v1/campaigns/doomed/messages',
      { messages: [{ role: 'dm', content: 'Beyond the hill lies the Ember Gate.' }] },
      { 'idempotency-key': 'doomed-say-1' },
    );
    expect(replay.headers.get('idempotent-replayed')).toBeNull();
    expect((await t.http('GET', '/v1/campaigns/doomed')).body).toMatchObject({ version: 2, messageCount: 1 });
  });

  it('a summary in flight when the campaign is deleted commits nothing', async () => {
    const s = await build('doomed-held');
    summarizer.reset();
    const gate = summarizer.hold();
    await s.say({ role: 'narrator', content: 'the tide comes in over the pier.' });
    await s.move('tavern'); // leaving the docks: their memory is summarized, and hangs
    await gate.reached();
    expect((await t.http('DELETE', '/v1/campaigns/doomed-held')).status).toBe(204);
    gate.release();
    // Give the released call time to try its commit (it must be fenced), then look.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await leftovers('doomed-held')).toEqual([]);
    expect((await t.http('GET', '/health/ready')).status).toBe(200);
  });

  it('a delete of an unknown campaign is 404 problem+json; a bad id is 400', async () => {
    const r = await t.http('DELETE', '/v1/campaigns/never-was');
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body.code).toBe('CAMPAIGN_NOT_FOUND');
    expect((await t.http('DELETE', `/v1/campaigns/${encodeURIComponent('bad id!')}`)).status).toBe(400);
  });
});
