import { FixedClock } from '@app/common';
import { differences, Everything } from '../../support/read-everything';
import { RecordingSummarizer } from '../../support/recording-summarizer';
import { startTestApp, TestApp } from '../../support/test-app';
import { buildTimelineCampaign, caughtUp, TimelineScenario, TimelineVersions } from '../../support/timeline-scenario';
import {
  addGameState,
  exportText,
  importText,
  linesOf,
  normalizePortable,
  readPortable,
  textOf,
} from '../../support/transfer';

/**
 * DESIGN §15 on one engine (SQLite, or PostgreSQL under TEST_DATABASE_URL): an import reads exactly as its source
 * (as a fork does: only the id and name differ), an `asOf` export as the source read as of that version, with no
 * model call; bad input imports nothing and names its line.
 */
describe('export and import (DESIGN §15)', () => {
  let t: TestApp;
  let s: TimelineScenario;
  const summarizer = new RecordingSummarizer();
  const clock = new FixedClock(new Date('2026-03-01T18:00:00.000Z'));
  const cid = 'saltmarsh';
  let full: string;
  let end: Date;

  beforeAll(async () => {
    t = await startTestApp({ summarizer, clock });
    s = await buildTimelineCampaign(t, cid, { perRoleMemory: true, clock });
    await addGameState(t, cid);
    await caughtUp(t, cid);
    full = await exportText(t, cid);
    end = clock.now();
  }, 180_000);
  afterAll(async () => t?.close());

  /** §10 as-of contexts leave the game-state section out; an import at V has no snapshots (as a fork has none). */
  const withoutAgentPreset = <T extends Everything>(e: T): T => ({
    ...e,
    contexts: Object.fromEntries(Object.entries(e.contexts).filter(([k]) => !k.startsWith('agent '))),
  });

  const expectSame = (a: unknown, b: unknown) => {
    expect(differences(a, b)).toEqual([]);
    expect(a).toEqual(b);
  };

  it('streams a header, every event of both streams in commit order, then the ledger and the snapshots', async () => {
    const lines = linesOf(full);
    const { version, processedVersion } = (await t.http('GET', `/v1/campaigns/${cid}`)).body;
    expect(lines[0]).toMatchObject({ format: 'lorekeeper-campaign', version: 1, campaignId: cid, timeline: 1 });
    expect(lines[0].game).toBe(version);
    expect(lines[0].processedVersion).toBe(processedVersion);
    const events = lines.filter((l) => l.stream);
    expect(events.filter((e) => e.stream === 'game').map((e) => e.version)).toEqual(
      Array.from({ length: version }, (_, i) => i + 1),
    );
    expect(events.filter((e) => e.stream === 'memory')).toHaveLength(lines[0].memory);
    // Metadata survives: every write's correlation id.
    expect(events.find((e) => e.type === 'MessageRecorded').metadata.correlationId).toEqual(expect.any(String));
    const kinds = new Set(lines.filter((l) => l.kind).map((l) => l.kind));
    expect([...kinds].sort()).toEqual(['account', 'snapshot', 'snapshot-tool', 'usage']);
    const firstRow = lines.findIndex((l) => l.kind);
    expect(lines.slice(firstRow).every((l) => l.kind)).toBe(true);
  });

  it('an import serves every read exactly as its source, and calls no model', async () => {
    const calls = summarizer.total();
    const r = await importText(t, full, 'saltmarsh-copy');
    expect(r.status).toBe(201);
    const head = linesOf(full)[0];
    expect(r.body).toEqual({ id: 'saltmarsh-copy', version: head.game, memoryVersion: head.memory });
    await caughtUp(t, 'saltmarsh-copy');
    const copied = (await t.http('GET', '/v1/campaigns/saltmarsh-copy')).body;
    expect({ id: copied.id, name: copied.name }).toEqual({ id: 'saltmarsh-copy', name: head.name });
    const source = normalizePortable(await readPortable(t, cid));
    const copy = normalizePortable(await readPortable(t, 'saltmarsh-copy'));
    expectSame(copy, source);
    expect((source.usage as { totals: { calls: number } }).totals.calls).toBeGreaterThan(0);
    expect(Object.keys(source.snapshots)).toContain('bo-acc/get_status');
    expect(summarizer.total()).toBe(calls);
  }, 120_000);

  it('exporting the import gives the same file (but the id and the time of export)', async () => {
    const again = linesOf(await exportText(t, 'saltmarsh-copy'));
    const first = linesOf(full);
    const strip = (l: any[]) => [{ ...l[0], campaignId: undefined, exportedAt: undefined }, ...l.slice(1)];
    expectSame(strip(again), strip(first));
  });

  const names: (keyof TimelineVersions)[] = ['setup', 'midScene', 'afterRetraction', 'afterCorrection', 'end'];
  it.each(names)(
    'an asOf export at %s imports as the source read as of that version',
    async (name) => {
      const V = s.versions[name]!;
      const id = `${cid}-at-${name}`;
      // A fact's expiry is judged at event V's time in an as-of read and now in a current one (§10): read at V's time.
      const recordedAt = (await t.http('GET', `/v1/campaigns/${cid}/events?after=${V - 1}&limit=1`)).body.items[0];
      clock.set(recordedAt.recordedAt);
      try {
        const text = await exportText(t, cid, `?asOf=${V}`);
        expect(linesOf(text)[0]).toMatchObject({ asOf: V, game: V });
        expect(linesOf(text).some((l) => l.kind === 'snapshot')).toBe(false);
        const calls = summarizer.total();
        expect((await importText(t, text, id)).status).toBe(201);
        // GET …/usage has no asOf (the source's is today's): the ledger rows up to V are compared per memory.
        const asOfRead = async (c: string, o: { asOf?: number } = {}) => {
          const read = withoutAgentPreset(normalizePortable(await readPortable(t, c, o)));
          return { ...read, usage: null, memoryUsage: {}, snapshots: {} };
        };
        const sourceAt = await asOfRead(cid, { asOf: V });
        expectSame(await asOfRead(id, { asOf: V }), sourceAt);
        expectSame(await asOfRead(id), sourceAt);
        // Each imported memory lists the calls its source memory lists (where the source has kept it).
        for (const [memoryId, calls] of Object.entries((await readPortable(t, id)).memoryUsage)) {
          const there = await t.http('GET', `/v1/campaigns/${cid}/memories/${encodeURIComponent(memoryId)}/usage`);
          if (there.status === 200) expect(calls).toEqual(there.body);
        }
        const usage = (await t.http('GET', `/v1/campaigns/${id}/usage`)).body.totals.calls;
        expect(usage).toBeLessThanOrEqual((await t.http('GET', `/v1/campaigns/${cid}/usage`)).body.totals.calls);
        expect(summarizer.total()).toBe(calls);
      } finally {
        clock.set(end);
      }
    },
    120_000,
  );

  it('imports an export larger than the 1 MiB JSON limit (the body is streamed, not parsed whole)', async () => {
    const made = await t.http('POST', '/v1/campaigns', { id: 'big', name: 'Big' });
    expect(made.status).toBe(201);
    const line = 'The tide brings crates, lanterns and rumours to the harbour. '.repeat(30);
    for (let post = 0; post < 3; post++) {
      const messages = Array.from({ length: 300 }, (_, i) => ({ role: 'narrator', content: `${post}.${i} ${line}` }));
      expect((await t.http('POST', '/v1/campaigns/big/messages', { messages })).status).toBe(201);
    }
    const text = await exportText(t, 'big');
    expect(Buffer.byteLength(text)).toBeGreaterThan(1.5 * 1024 * 1024);
    const r = await importText(t, text, 'big-copy');
    expect(r.status).toBe(201);
    const all = async (id: string) => (await t.http('GET', `/v1/campaigns/${id}/messages?limit=1000`)).body.items;
    expect(await all('big-copy')).toEqual(await all('big'));
  });

  it('refuses an asOf outside the campaign and an unknown campaign', async () => {
    const { version } = (await t.http('GET', `/v1/campaigns/${cid}`)).body;
    for (const [q, status, code] of [
      [`?asOf=${version + 1}`, 400, 'INVALID_VERSION'],
      ['?asOf=0', 400, 'INVALID_VERSION'],
      ['?since=3', 400, 'VALIDATION_FAILED'],
    ] as const) {
      const r = await t.http('GET', `/v1/campaigns/${cid}/export${q}`);
      expect({ q, status: r.status, code: r.body?.code }).toEqual({ q, status, code });
    }
    expect((await t.http('GET', '/v1/campaigns/nowhere/export')).status).toBe(404);
  });

  describe('bad input imports nothing and says where it broke', () => {
    const lines = () => linesOf(full);
    const firstEvent = () => lines().findIndex((l) => l.stream === 'memory');
    const cases: [string, () => string, number, string, RegExp | null][] = [
      ['an empty body', () => '', 400, 'UNSUPPORTED_EXPORT', null],
      ['no header', () => textOf(lines().slice(1)), 400, 'UNSUPPORTED_EXPORT', null],
      [
        'an unknown format',
        () => textOf([{ ...lines()[0], format: 'letta-agent' }, ...lines().slice(1)]),
        400,
        'UNSUPPORTED_EXPORT',
        null,
      ],
      [
        'a newer version',
        () => textOf([{ ...lines()[0], version: 2 }, ...lines().slice(1)]),
        400,
        'UNSUPPORTED_EXPORT',
        null,
      ],
      [
        'a line that is not JSON',
        () => full.replace(/\n/, '\n{"stream": "game", oops\n'),
        400,
        'INVALID_EXPORT',
        /^line 2:/,
      ],
      [
        'a line that is not an event',
        () => textOf([...lines().slice(0, 3), { hello: 1 }, ...lines().slice(3)]),
        400,
        'INVALID_EXPORT',
        /^line 4:/,
      ],
      ['a version gap', () => textOf(lines().filter((_, i) => i !== 5)), 400, 'INVALID_EXPORT', /^line 6: .*gap/],
      [
        'a duplicate event',
        () => textOf([...lines().slice(0, 6), lines()[5], ...lines().slice(6)]),
        400,
        'INVALID_EXPORT',
        /^line 7: /,
      ],
      [
        'a memory event before its trigger',
        () => {
          const l = lines();
          const i = firstEvent();
          return textOf([l[0], l[i], ...l.slice(1, i), ...l.slice(i + 1)]);
        },
        400,
        'INVALID_EXPORT',
        /^line 2: /,
      ],
      ['a truncated export', () => textOf(lines().slice(0, 40)), 400, 'INVALID_EXPORT', /^line 40: .*ends at/],
      ['a second campaign', () => full + full, 400, 'INVALID_EXPORT', /a second campaign/],
      ['an unknown row', () => textOf([...lines(), { kind: 'secret', x: 1 }]), 400, 'INVALID_EXPORT', null],
      [
        'event data the projections cannot take',
        () => textOf(lines().map((l) => (l.stream === 'game' && l.version === 1 ? { ...l, data: { nope: true } } : l))),
        400,
        'INVALID_EXPORT',
        /^line 2: /,
      ],
    ];
    it.each(cases)('%s', async (_name, make, status, code, detail) => {
      const before = (await t.http('GET', '/v1/campaigns?limit=100')).body.items.length;
      const r = await importText(t, make(), 'never-made');
      expect({ status: r.status, code: r.body?.code }).toEqual({ status, code });
      expect(r.headers.get('content-type')).toContain('application/problem+json');
      if (detail) expect(r.body.detail).toMatch(detail);
      expect((await t.http('GET', '/v1/campaigns/never-made')).status).toBe(404);
      expect((await t.http('GET', '/v1/campaigns?limit=100')).body.items.length).toBe(before);
    });

    it('an id in use is 409 CAMPAIGN_EXISTS, the exported id included', async () => {
      expect((await importText(t, full, 'twice')).status).toBe(201);
      for (const id of [cid, undefined, 'twice']) {
        const r = await importText(t, full, id);
        expect({ id, status: r.status, code: r.body?.code }).toEqual({ id, status: 409, code: 'CAMPAIGN_EXISTS' });
      }
    });

    it('two imports of one id at once: one is 201, the other 409, and the campaign is whole', async () => {
      const both = await Promise.all([importText(t, full, 'raced'), importText(t, full, 'raced')]);
      expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
      expect(both.find((r) => r.status === 409)!.body.code).toBe('CAMPAIGN_EXISTS');
      const events = (await t.http('GET', '/v1/campaigns/raced/events?limit=1000')).body.items;
      expect(events).toHaveLength(linesOf(full)[0].game);
    });

    it('a JSON body is 415, a bad id 400', async () => {
      const json = await t.http('POST', '/v1/campaigns/import', { events: [] });
      expect({ status: json.status, code: json.body?.code }).toEqual({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
      const bad = await importText(t, full, 'bad id!');
      expect({ status: bad.status, code: bad.body?.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
      const elsewhere = await t.http('POST', `/v1/campaigns/${cid}/messages`, '{}\n', {
        'content-type': 'application/x-ndjson',
      });
      expect(elsewhere.status).toBe(415);
    });
  });
});

describe('export and import limits and keys (DESIGN §15)', () => {
  const ADMIN = 'admin-token-0123456789abcdef';
  const ARIA = 'aria-token-0123456789abcdef';
  const KEEP = 'keep-token-0123456789abcdef';
  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  let t: TestApp;
  let text: string;

  beforeAll(async () => {
    t = await startTestApp({
      env: { LOREKEEPER_API_KEYS: `${ADMIN}, ${ARIA}=keep*@player:aria, ${KEEP}=keep*`, IMPORT_MAX_BYTES: '65536' },
    });
    const made = await t.http('POST', '/v1/campaigns', { id: 'keep', name: 'Keep' }, as(ADMIN));
    expect(made.status).toBe(201);
    text = await exportText(t, 'keep', '', as(ADMIN));
  });
  afterAll(async () => t?.close());

  it('a viewer-bound key may neither export nor import (403 VIEWER_BOUND)', async () => {
    const out = await t.http('GET', '/v1/campaigns/keep/export', undefined, as(ARIA));
    expect({ status: out.status, code: out.body?.code }).toEqual({ status: 403, code: 'VIEWER_BOUND' });
    const asOf = await t.http('GET', '/v1/campaigns/keep/export?asOf=1', undefined, as(ARIA));
    expect(asOf.status).toBe(403);
    const back = await importText(t, text, 'keep-aria', as(ARIA));
    expect({ status: back.status, code: back.body?.code }).toEqual({ status: 403, code: 'VIEWER_BOUND' });
  });

  it('a scoped key imports only within its scope; without a key it is 401', async () => {
    const out = await importText(t, text, 'elsewhere', as(KEEP));
    expect({ status: out.status, code: out.body?.code }).toEqual({ status: 403, code: 'CAMPAIGN_OUT_OF_SCOPE' });
    expect((await importText(t, text, 'keep-2', as(KEEP))).status).toBe(201);
    expect((await importText(t, text, 'keep-3')).status).toBe(401);
  });

  it('an export larger than IMPORT_MAX_BYTES is 413 and imports nothing', async () => {
    const big = text + textOf([{ kind: 'usage', padding: 'x'.repeat(70_000) }]);
    const r = await importText(t, big, 'keep-big', as(ADMIN));
    expect({ status: r.status, code: r.body?.code }).toEqual({ status: 413, code: 'BODY_TOO_LARGE' });
    // Sent in chunks without a length: refused as it streams past the limit.
    const chunked = await fetch(`${t.url}/v1/campaigns/import?id=keep-big`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', ...as(ADMIN) },
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await t.http('GET', '/v1/campaigns/keep-big', undefined, as(ADMIN))).status).toBe(404);
  });
});
