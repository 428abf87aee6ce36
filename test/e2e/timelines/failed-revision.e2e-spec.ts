import { Database, DATABASE, sql } from '@app/database';
import { judgeWithheld, WithheldRow } from '../../../scripts/chaos-withheld';
import { RecordingSummarizer } from '../../support/recording-summarizer';
import { caughtUp, tavernNight } from '../../support/timeline-scenario';
import { startTestApp, TestApp } from '../../support/test-app';

/**
 * §10: a revision whose model call fails records `MemorySkipped {revisionOf}` and the memory stays withheld until a
 * later trigger revises it. A fork's own events after its CampaignForked (retractions, rewinds, forks) may bring none,
 * so a caught-up fork can keep it withheld — the chaos harness's "still withheld after catch-up" (chaos-withheld.ts).
 */
describe('a failed revision on a fork', () => {
  let t: TestApp;
  const summarizer = new RecordingSummarizer('echo', 'echo');
  beforeAll(async () => {
    t = await startTestApp({ summarizer });
  });
  afterAll(async () => t.close());

  const withheld = async (cid: string): Promise<WithheldRow[]> => {
    const text =
      'SELECT campaign_id AS "campaignId", id, changed_version AS "changedVersion" FROM memories ' +
      "WHERE campaign_id = ? AND status = 'withheld'";
    const { rows } = await t.app.get<Database>(DATABASE).read((m) => sql<WithheldRow>(m, text, [cid]));
    return rows.map((r) => ({ ...r, changedVersion: Number(r.changedVersion) }));
  };
  const memoryEvents = async (cid: string) =>
    (await t.http('GET', `/v1/campaigns/${cid}/events?stream=memory&limit=1000`)).body.items as {
      type: string;
      data: Record<string, unknown>;
    }[];
  const retract = async (cid: string, index: number) => {
    const res = await t.http('POST', `/v1/campaigns/${cid}/messages/retract`, { indexes: [index] });
    expect(res.status).toBe(202);
    return res.body.version as number;
  };

  it('stays withheld once the fork caught up, explained by its MemorySkipped; a later retraction revises it', async () => {
    const lines = ['Aria orders cider.', 'rain drums on the roof.', 'a bard tunes his lute.', 'Aria pays in silver.'];
    const { s } = await tavernNight(
      t,
      'night',
      lines.map((content) => ({ role: 'player', content })),
      { mira: false },
    );
    await s.move('docks'); // the tavern's memory: messages 0–3
    await s.settled();
    expect((await t.http('POST', '/v1/campaigns/night/fork', { id: 'night-b' })).status).toBe(201);
    await caughtUp(t, 'night-b');

    // The revision of the retraction fails (every attempt): the worker records it and moves on past the retraction.
    summarizer.failing.add('location');
    const retractedAt = await retract('night-b', 2);
    expect(await caughtUp(t, 'night-b')).toBe(retractedAt);
    const [row] = await withheld('night-b');
    expect(row).toMatchObject({ campaignId: 'night-b', changedVersion: retractedAt });
    const stream = await memoryEvents('night-b');
    expect(stream[stream.length - 1]).toMatchObject({
      type: 'MemorySkipped',
      data: { revisionOf: row.id, triggerVersion: retractedAt },
    });
    // Nothing ever revisits it on its own: this is the row the chaos check used to count as a lost revision.
    expect(judgeWithheld([row], stream)).toEqual({
      explained: [{ row, reason: 'error: scripted location failure' }],
      lost: [],
    });
    expect(judgeWithheld([row], stream.slice(0, -1))).toEqual({ explained: [], lost: [row] });

    // A fork of it (as a rewind's keepAs makes) copies the row and the failed revision with it.
    const kept = await t.http('POST', '/v1/campaigns/night-b/rewind', { toVersion: retractedAt, keepAs: 'night-k' });
    expect(kept.status).toBe(200);
    await caughtUp(t, 'night-k');
    const copied = await withheld('night-k');
    expect(copied.map((r) => r.id)).toEqual([row.id]);
    expect(judgeWithheld(copied, await memoryEvents('night-k')).lost).toEqual([]);

    // The next trigger that fires a revision (here another retraction) revises it from what survives both.
    summarizer.failing.clear();
    await retract('night-b', 0);
    await caughtUp(t, 'night-b');
    expect(await withheld('night-b')).toEqual([]);
    const revised = (await memoryEvents('night-b')).filter((e) => e.type === 'MemoryRevised');
    expect(revised.map((e) => [e.data.memoryId, e.data.inputIndexes])).toEqual([[row.id, [1, 3]]]);
  });
});
