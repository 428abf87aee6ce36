import { CampaignReader, CampaignState, emptyState, fold, GameEvent } from '@app/campaign';
import { EVENT_STORE, EventStore, gameStream } from '@app/event-store';
import { MemoryWorker } from '@app/memory';
import { DataSource } from 'typeorm';
import { rebuildProjections } from '../../../scripts/rebuild-projections';
import { scenario } from '../../support/scenario';
import { startTestApp, tempDb, TestApp } from '../../support/test-app';

const CID = 'rows';

/** The campaign state stored as versioned rows (docs/state.md), over HTTP on a real database. */
describe('campaign state rows', () => {
  let t: TestApp;
  const db = tempDb();
  const s = () => scenario(t, CID);
  const query = <T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> => {
    const ds = t.app.get(DataSource);
    const pg = ds.options.type === 'postgres';
    let n = 0;
    return ds.query(pg ? text.replace(/\?/g, () => `$${++n}`) : text, params);
  };
  const rows = () =>
    query<{ kind: string; key: string; valid_from: number; valid_to: number | null; doc: string }>(
      'SELECT kind, key, valid_from, valid_to, doc FROM campaign_state_rows WHERE campaign_id = ? ' +
        'ORDER BY kind, key, valid_from',
      [CID],
    ).then((r) =>
      r.map((x) => ({ ...x, valid_from: Number(x.valid_from), valid_to: x.valid_to && Number(x.valid_to) })),
    );
  /** The fold of the game stream up to `v`: what the rows must give back. */
  const folded = async (v: number): Promise<CampaignState> => {
    const events = await t.app.get<EventStore>(EVENT_STORE).readStream(gameStream(CID), { until: v });
    const steps = events.map((e) => ({
      event: { type: e.type, data: e.data } as GameEvent,
      version: e.version,
      recordedAt: e.recordedAt,
    }));
    return { ...fold(emptyState(CID), steps), timeline: 1 };
  };

  beforeAll(async () => {
    t = await startTestApp({ dbPath: db.path });
    const c = s();
    await c.create('Rows of the Saga');
    await c.location('inn', 'Rusty Anchor', 'SAFE');
    await c.location('crypt', 'Old Crypt');
    await c.npc('brom', 'Brom', 'inn', ['the smith']);
    await c.quest('relic', 'Find the Relic', [
      { id: 'map', name: 'Buy the map' },
      { id: 'enter', name: 'Enter the crypt' },
    ]);
    await c.move('inn');
    await c.say({ role: 'dm', content: 'The fire crackles.' }, { role: 'player', speaker: 'Aria', content: 'Hi.' });
    await c.command('complete-objective', { questId: 'relic', objectiveId: 'map' });
    await c.command('update-location-state', { locationId: 'crypt', completeEncounter: 'ghouls' });
    await c.command('end-round');
    await c.npc('brom', 'Brom', 'crypt', ['the smith']);
    await c.command('end-round');
    const put = async (path: string, body: unknown) => {
      const res = await t.http('PUT', `/v1/campaigns/${CID}${path}`, body);
      if (res.status !== 200) throw new Error(`PUT ${path} → ${res.status} ${res.text}`);
    };
    await put('/bible', { text: 'The Glass Road.', dmOnly: 'The master is in debt.' });
    await put('/glossary/Void-Chisel', { definition: 'A blade that cuts doors into stone.' });
    await put('/facts/debt/aria-brom', { value: 'Aria owes Brom 5 gold' });
    await put('/players/aria', { name: 'Aria', stats: { HP: 12 } });
    await c.say({ role: 'npc', speaker: 'Brom', npcIds: ['brom'], content: 'Pay up.' });
  });
  afterAll(async () => {
    await t.close();
    db.cleanup();
  });

  it('gives back the fold of the game stream at every version, now and as of each past one', async () => {
    const { version } = await s().campaign();
    const reader = t.app.get(CampaignReader);
    expect((await reader.find(CID))!.state).toEqual({ ...(await folded(version)), rewinds: [] });
    // Assembled once, then served from the cache by (timeline, version): the same object again.
    expect((await reader.find(CID))!.state).toBe((await reader.find(CID))!.state);
    for (let v = 1; v <= version; v++) expect(await reader.stateAt(CID, v)).toEqual(await folded(v));
    // Only the kinds asked for: the narrative context's state at the round's end has no quests or facts.
    const narrative = (await reader.stateAt(CID, version - 1, ['head', 'location', 'npc']))!;
    expect(narrative.npcs.brom.locationId).toBe('crypt');
    expect(narrative.quests).toEqual({});
    expect(narrative.round).toBe(3);
    await expect(reader.stateAt(CID, 0)).rejects.toMatchObject({ code: 'INVALID_VERSION' });
    await expect(reader.stateAt(CID, version + 1)).rejects.toMatchObject({ code: 'INVALID_VERSION' });
    await expect(reader.stateAt('nobody', 1)).rejects.toMatchObject({ code: 'CAMPAIGN_NOT_FOUND' });
  });

  it('a message writes no state row and no document; an NPC update closes its row and adds one', async () => {
    const before = await rows();
    await s().say({ role: 'dm', content: 'Rain on the roof.' });
    expect(await rows()).toEqual(before);
    const [campaign] = await query<{ state: string; message_count: number }>(
      'SELECT state, message_count FROM campaigns WHERE id = ?',
      [CID],
    );
    expect(campaign.state).toBe('');
    expect(Number(campaign.message_count)).toBe(4);

    const { version } = await s().npc('brom', 'Brom', 'inn', ['the smith']);
    const after = await rows();
    const brom = after.filter((r) => r.kind === 'npc' && r.key === 'brom');
    expect(brom.map((r) => [r.valid_from, r.valid_to])).toEqual([
      [4, brom[1].valid_from],
      [brom[1].valid_from, version],
      [version, null],
    ]);
    expect(after.length).toBe(before.length + 1);
  });

  it('a rebuild of the projections writes the same rows', async () => {
    const before = await rows();
    const { version } = await s().campaign();
    await t.close();
    await rebuildProjections(t.config);
    t = await startTestApp({ dbPath: db.path });
    expect(await rows()).toEqual(before);
    expect((await t.app.get(CampaignReader).find(CID))!.state).toEqual({ ...(await folded(version)), rewinds: [] });
  });

  it('at boot, a campaign still holding the JSON document of an older release gets its rows and loses the document', async () => {
    const before = await rows();
    // The view names processedVersion: taken once the memory worker has caught up, on both sides of the restart.
    await t.app.get(MemoryWorker).idle();
    const view = await s().campaign();
    const doc = JSON.stringify((await t.app.get(CampaignReader).find(CID))!.state);
    // What an older release left: the document, no rows.
    await query('UPDATE campaigns SET state = ? WHERE id = ?', [doc, CID]);
    await query('DELETE FROM campaign_state_rows WHERE campaign_id = ?', [CID]);
    await t.close();
    t = await startTestApp({ dbPath: db.path });
    expect((await t.http('GET', '/health/ready')).status).toBe(200);
    expect(await rows()).toEqual(before);
    await t.app.get(MemoryWorker).idle();
    expect(await s().campaign()).toEqual(view);
    const [campaign] = await query<{ state: string }>('SELECT state FROM campaigns WHERE id = ?', [CID]);
    expect(campaign.state).toBe('');
    await s().say({ role: 'dm', content: 'Still here after the upgrade.' });
  });
});
