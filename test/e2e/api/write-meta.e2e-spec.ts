import { FixedClock } from '@app/common';
import { IdempotencyRecord } from '@app/database';
import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(60_000);

/** `@WriteMeta()` and `WriteMetaInterceptor`: what the write routes share, as a client sees it. */
describe('write metadata over HTTP', () => {
  let t: TestApp;
  const clock = new FixedClock(new Date('2026-05-01T12:00:00.000Z'));

  beforeAll(async () => {
    t = await startTestApp({ clock });
    expect((await t.http('POST', '/v1/campaigns', { id: 'wm', name: 'Write meta' })).status).toBe(201);
  });
  afterAll(async () => t.close());

  it('reports a bad body or path before a malformed If-Match or Idempotency-Key, as the routes always did', async () => {
    const badHeaders = { 'if-match': '"7', 'idempotency-key': 'has space' };
    const badBody = await t.http('PUT', '/v1/campaigns/wm/locations/tavern', { name: '' }, badHeaders);
    expect([badBody.status, badBody.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    const badFact = await t.http('PUT', '/v1/campaigns/wm/facts/rumor/k', { value: 7 }, badHeaders);
    expect([badFact.status, badFact.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    // The domain's own rules come after the headers, as before: TTL_REQUIRED is decided in the write.
    const noTtl = await t.http('PUT', '/v1/campaigns/wm/facts/rumor/k', { value: 'x' }, badHeaders);
    expect([noTtl.status, noTtl.body.code]).toEqual([400, 'INVALID_IDEMPOTENCY_KEY']);
    const badIfMatch = await t.http(
      'PUT',
      '/v1/campaigns/wm/locations/tavern',
      { name: 'Tavern' },
      { 'if-match': '"7' },
    );
    expect([badIfMatch.status, badIfMatch.body.code]).toEqual([400, 'INVALID_IF_MATCH']);
    const badKey = await t.http(
      'PUT',
      '/v1/campaigns/wm/locations/tavern',
      { name: 'Tavern' },
      { 'idempotency-key': 'has space' },
    );
    expect([badKey.status, badKey.body.code]).toEqual([400, 'INVALID_IDEMPOTENCY_KEY']);
    expect((await t.http('GET', '/v1/campaigns/wm')).body.version).toBe(1); // none of them wrote
  });

  it('marks only a replay with Idempotent-Replayed, and replays the first answer after the state moved on', async () => {
    const put = (name: string, key?: string) =>
      t.http('PUT', '/v1/campaigns/wm/npcs/mira', { name }, key ? { 'idempotency-key': key } : {});
    const first = await put('Mira', 'npc-1');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    await put('Mira the Bold');
    const replay = await put('Mira', 'npc-1');
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(replay.body.npc.name).toBe('Mira');
  });

  it('sends back as it is an answer an older release stored for a key (a rendered body)', async () => {
    const legacy = {
      version: 99,
      location: { id: 'dock', name: 'Stored by an older release', dangerLevel: null, completedEncounters: [] },
    };
    const body = { name: 'Dock' };
    // The same request once, to learn its scope and hash; then its stored answer is replaced by a rendered body.
    await t.http('PUT', '/v1/campaigns/wm/locations/dock', body, { 'idempotency-key': 'legacy-1' });
    const ds = t.app.get(DataSource);
    await ds.getRepository(IdempotencyRecord).update({ key: 'legacy-1' }, { body: JSON.stringify(legacy) });
    const replay = await t.http('PUT', '/v1/campaigns/wm/locations/dock', body, { 'idempotency-key': 'legacy-1' });
    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(replay.body).toEqual(legacy);
  });
});
