import { FixedClock } from '@app/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportCommand, importCommand } from '../../apps/memory-service/src/transfer/transfer.cli';
import { differences, Everything } from '../support/read-everything';
import { RecordingSummarizer } from '../support/recording-summarizer';
import { startTestApp, TestApp, tempDb } from '../support/test-app';
import { createTestSchema, schemaForPath, testDatabaseUrl } from '../support/test-postgres';
import { buildTimelineCampaign, caughtUp } from '../support/timeline-scenario';
import {
  addGameState,
  exportText,
  importText,
  normalizePortable,
  Portable,
  readPortable,
  unscored,
} from '../support/transfer';
import { describePg } from './describe-pg';

/**
 * DESIGN §15 between engines: SQLite → PostgreSQL → SQLite by the routes, and the README's move by the commands
 * (a SQLite file exported, imported into PostgreSQL): every read equal. Search and Recall are each engine's own
 * ranking (§7), so between engines they compare by the entries returned; SQLite → SQLite again compares in full.
 */
describePg('moving a campaign between SQLite and PostgreSQL (DESIGN §15)', () => {
  const summarizer = new RecordingSummarizer();
  const clock = new FixedClock(new Date('2026-03-01T18:00:00.000Z'));
  const cid = 'saltmarsh';
  const sqliteFile = tempDb();
  const dir = mkdtempSync(join(tmpdir(), 'lorekeeper-transfer-'));
  let source: TestApp;
  let sourceRead: Portable;
  const apps: TestApp[] = [];

  const sqliteApp = async (path = tempDb().path) => {
    const t = await startTestApp({ summarizer, clock, dbPath: path, env: { DATABASE_URL: `sqlite:${path}` } });
    apps.push(t);
    return t;
  };
  const pgApp = async (dbPath?: string) => {
    const t = await startTestApp({ summarizer, clock, dbPath });
    apps.push(t);
    return t;
  };

  beforeAll(async () => {
    source = await sqliteApp(sqliteFile.path);
    await buildTimelineCampaign(source, cid, { perRoleMemory: true, clock });
    await addGameState(source, cid);
    await caughtUp(source, cid);
    sourceRead = normalizePortable(await readPortable(source, cid));
  }, 180_000);
  afterAll(async () => {
    for (const t of apps) await t.close().catch(() => undefined);
    sqliteFile.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Between engines: search hits without score and snippet, and the contexts that rank by search (a query's Recall)
   * as the set of entries they hold.
   */
  const acrossEngines = (e: Portable): Portable => {
    const copy = unscored(e);
    const byText = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));
    for (const r of Object.values(copy.search) as { items: unknown[] }[]) r.items.sort(byText);
    for (const [key, ctx] of Object.entries(copy.contexts)) {
      if (!key.includes(' query ')) continue;
      // Text: its lines as a set, and the list of what was dropped (in rank order) as a set too.
      const dropped = (line: string) => (line.startsWith('<!-- context:') ? line.split(', ').sort().join(', ') : line);
      if (typeof ctx === 'string') copy.contexts[key] = ctx.split('\n').map(dropped).sort().join('\n');
      else {
        (ctx as { dropped?: unknown[] }).dropped?.sort(byText);
        for (const section of (ctx as { sections?: { entries?: { score?: number }[] }[] }).sections ?? []) {
          for (const entry of section.entries ?? []) {
            delete entry.score;
            delete (entry as { rank?: number }).rank;
          }
          section.entries?.sort(byText);
        }
      }
    }
    return copy;
  };

  const expectSame = (a: Everything, b: Everything) => {
    expect(differences(a, b)).toEqual([]);
    expect(a).toEqual(b);
  };

  it('SQLite → PostgreSQL → SQLite by the routes: every read equal, no model call', async () => {
    const calls = summarizer.total();
    const pg = await pgApp();
    const intoPg = await importText(pg, await exportText(source, cid));
    expect(intoPg.status).toBe(201);
    await caughtUp(pg, cid);
    const pgRead = normalizePortable(await readPortable(pg, cid));
    expectSame(acrossEngines(pgRead), acrossEngines(sourceRead));

    const back = await sqliteApp();
    expect((await importText(back, await exportText(pg, cid), 'saltmarsh-back')).status).toBe(201);
    await caughtUp(back, 'saltmarsh-back');
    // Same engine again: search with its ranks, Recall in its order.
    expectSame(normalizePortable(await readPortable(back, 'saltmarsh-back')), sourceRead);
    expect(summarizer.total()).toBe(calls);
  }, 180_000);

  it('the README move: lorekeeper export from a SQLite file, lorekeeper import into PostgreSQL', async () => {
    const second = await source.http('POST', `/v1/campaigns/${cid}/fork`, { id: 'saltmarsh-what-if', atVersion: 20 });
    expect(second.status).toBe(201);
    await caughtUp(source, 'saltmarsh-what-if');
    const forkRead = normalizePortable(await readPortable(source, 'saltmarsh-what-if'));
    const file = join(dir, 'backup.ndjson');
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    expect(await exportCommand(['--out', file], { DATABASE_URL: `sqlite:${sqliteFile.path}` }, io)).toBe(0);
    expect(lines.at(-1)).toMatch(/^exported 2 campaigns/);

    const target = join(dir, 'pg-target');
    const schema = await createTestSchema(testDatabaseUrl()!, schemaForPath(target));
    expect(await importCommand([file], { DATABASE_URL: schema.url }, io)).toBe(0);
    expect(lines.at(-1)).toMatch(/^imported 2 campaigns/);
    // Run again, the ids are in use: refused, nothing changes.
    expect(await importCommand([file], { DATABASE_URL: schema.url }, io)).toBe(1);
    expect(lines.at(-1)).toMatch(/CAMPAIGN_EXISTS/);

    const pg = await pgApp(target);
    const calls = summarizer.total();
    await caughtUp(pg, cid);
    expectSame(acrossEngines(normalizePortable(await readPortable(pg, cid))), acrossEngines(sourceRead));
    // The whole database moved, so the fork still names its parent and the parent lists it.
    const links = async (t: TestApp, id: string) => {
      const { parent, children } = (await t.http('GET', `/v1/campaigns/${id}`)).body;
      return { parent, children };
    };
    expect(await links(pg, 'saltmarsh-what-if')).toEqual(await links(source, 'saltmarsh-what-if'));
    expect(await links(pg, cid)).toEqual(await links(source, cid));
    expect((await links(pg, cid)).children).toEqual([{ id: 'saltmarsh-what-if', atVersion: 20 }]);
    const fork = normalizePortable(await readPortable(pg, 'saltmarsh-what-if'));
    expectSame(acrossEngines(fork), acrossEngines(forkRead));
    expect(summarizer.total()).toBe(calls);
  }, 180_000);
});

describe('lorekeeper export / import arguments', () => {
  it('answers its usage (exit 2) to missing or unknown arguments, and 1 to a missing file', async () => {
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    const env = { DATABASE_URL: 'sqlite::memory:' };
    expect(await exportCommand([], env, io)).toBe(2);
    expect(await exportCommand(['--out'], env, io)).toBe(2);
    expect(await importCommand([], env, io)).toBe(2);
    expect(lines.filter((l) => l.startsWith('usage:'))).toHaveLength(3);
    expect(await importCommand(['/nonexistent/backup.ndjson'], env, io)).toBe(1);
    expect(lines.at(-1)).toMatch(/^import failed/);
  });
});
