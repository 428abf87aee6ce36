import { LorekeeperClient } from '@app/client';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './support/service-process';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(240_000);
const run = promisify(execFile);
const WALKTHROUGH = join(REPO_ROOT, 'test/openapi-client/walkthrough.mts');

/**
 * Issue 22: a client nobody here wrote, generated from /docs/openapi.json (openapi-typescript + openapi-fetch),
 * must type-check a whole session under `tsc --strict` without a cast and then work against the service.
 */
describe('a client generated from the OpenAPI document', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await startTestApp();
    dir = mkdtempSync(join(tmpdir(), 'lk-openapi-client-'));
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('compiles a strict walk-through without casts and runs it, the whisper kept private', async () => {
    const source = readFileSync(WALKTHROUGH, 'utf8');
    // No escape hatches: no `as` casts, no any, no non-null assertions on data, no ts-ignore.
    expect(source).not.toMatch(/\bas\s+(?!const\b)[A-Za-z{[(]|\bany\b|@ts-|\)!\./);

    const doc = await t.http('GET', '/docs/openapi.json');
    writeFileSync(join(dir, 'openapi.json'), doc.text);
    await run(
      process.execPath,
      [join(REPO_ROOT, 'node_modules/openapi-typescript/bin/cli.js'), 'openapi.json', '-o', 'schema.d.ts'],
      { cwd: dir },
    );
    const schema = readFileSync(join(dir, 'schema.d.ts'), 'utf8');
    // Integers are numbers in the generated types, and no answer is left `unknown`.
    expect(schema).toMatch(/budget\?: number;/);
    expect(schema).toMatch(/minVersion\?: number;/);

    copyFileSync(WALKTHROUGH, join(dir, 'walkthrough.mts'));
    const tsconfig = {
      compilerOptions: {
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        lib: ['es2022', 'dom'],
        types: ['node'],
        skipLibCheck: true,
        outDir: 'out',
      },
      files: ['walkthrough.mts'],
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    const tsc = await run(
      process.execPath,
      [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
      { cwd: dir },
    ).catch((err: { stdout: string }) => err);
    expect(tsc.stdout).toBe('');

    const { stdout } = await run(process.execPath, [join(dir, 'out/walkthrough.mjs'), t.url], { cwd: dir });
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({
      created: 1,
      npcLocation: 'tavern',
      replayed: true,
      indexes: [0, 1, 2],
      staleCode: 'VERSION_MISMATCH',
      location: 'docks',
      objectiveCompleted: true,
      processed: true,
      budget: 600,
      dmSeesWhisper: true,
      brannocSeesWhisper: false,
      missing: { status: 404, code: 'CAMPAIGN_NOT_FOUND' },
    });
    expect(result.used).toBeGreaterThan(0);
    expect(result.used).toBeLessThanOrEqual(600);
    expect(result.dmSections).toEqual(expect.arrayContaining(['Recent Messages', 'NPC Memory']));
    expect(result.miraMemories).toBe(1);
  });

  it('libs/client: every method calls an operation the document declares, and the service accepts it', async () => {
    const doc = (await t.http('GET', '/docs/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const templates = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => ({
        method: method.toUpperCase(),
        re: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        path,
      })),
    );
    const calls: string[] = [];
    const undeclared: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const url = new URL(String(input));
      const method = init?.method ?? 'GET';
      const op = templates.find((o) => o.method === method && o.re.test(url.pathname));
      if (op) calls.push(`${method} ${op.path}`);
      else undeclared.push(`${method} ${url.pathname}`);
      return fetch(input, init);
    };
    const c = new LorekeeperClient({ baseUrl: t.url, fetch: recording });
    const cid = 'typed-client';
    await c.createCampaign({ id: cid, name: 'Typed' });
    await c.getCampaign(cid);
    await c.putLocation(cid, 'tavern', { name: 'Tavern', dangerLevel: 'SAFE' });
    await c.putLocation(cid, 'docks', { name: 'Docks' });
    await c.putNpc(cid, 'mira', { name: 'Mira', locationId: 'tavern' });
    await c.putQuest(cid, 'relic', {
      name: 'Relic',
      objectives: [
        { id: 'map', name: 'Map' },
        { id: 'boat', name: 'Boat' },
      ],
    });
    await c.changeLocation(cid, 'tavern', { idempotencyKey: 'typed-move-1' });
    const rec = await c.recordMessages(cid, [
      { role: 'npc', speaker: 'Mira', content: 'The crates went to the lighthouse.' },
    ]);
    await c.listMessages(cid, { limit: 10 });
    await c.completeObjective(cid, 'relic', 'map', { ifMatch: rec.version });
    await c.updateLocationState(cid, { locationId: 'docks', dangerLevel: 'HIGH' });
    await c.progressAct(cid, 'act-2');
    await c.endRound(cid);
    await c.changeLocation(cid, 'docks');
    await c.completeQuest(cid, 'relic');
    await c.memories(cid, { scope: 'world', limit: 5 });
    await c.events(cid, { stream: 'game', limit: 5 });
    await c.search(cid, { q: 'lighthouse', in: 'messages', limit: 5 });
    await c.postBroadcast({ content: 'Pirates near Vega', from: 'agent-7' });
    await c.broadcasts({ q: 'pirates' });
    await c.context(cid, { agent: 'dm', budget: 500 });
    expect(await c.contextText(cid)).toContain('##');
    // The harness checks every answer against its documented schema, so an answer that drifted would have thrown.
    expect(undeclared).toEqual([]);
    expect(new Set(calls).size).toBeGreaterThanOrEqual(18);
  });
});
