import { LorekeeperClient } from '@app/client';
import { join } from 'node:path';
import { clientFolder, ESCAPE_HATCH } from '../../support/generated-client';
import { REPO_ROOT } from '../../support/service-process';
import { startTestApp, TestApp } from '../../support/test-app';
import { readFileSync } from 'node:fs';

jest.setTimeout(240_000);
const WALKTHROUGH = join(REPO_ROOT, 'test/openapi-client/walkthrough.mts');

/**
 * Issue 22: a client nobody here wrote, generated from /docs/openapi.json (openapi-typescript + openapi-fetch),
 * must type-check a whole session under `tsc --strict` without a cast and then work against the service.
 */
describe('a client generated from the OpenAPI document', () => {
  let t: TestApp;
  let folder: ReturnType<typeof clientFolder>;
  beforeAll(async () => {
    t = await startTestApp();
    folder = clientFolder('lk-openapi-client-');
  });
  afterAll(async () => {
    await t.close();
    folder.remove();
  });

  it('compiles a strict walk-through without casts and runs it, the whisper kept private', async () => {
    expect(readFileSync(WALKTHROUGH, 'utf8')).not.toMatch(ESCAPE_HATCH);

    const doc = await t.http('GET', '/docs/openapi.json');
    folder.write('openapi.json', doc.text);
    await folder.generate('openapi-typescript/bin/cli.js', ['openapi.json', '-o', 'schema.d.ts']);
    const schema = folder.read('schema.d.ts');
    // Integers are numbers in the generated types, and no answer is left `unknown`.
    expect(schema).toMatch(/budget\?: number;/);
    expect(schema).toMatch(/minVersion\?: number;/);

    folder.copy(WALKTHROUGH);
    const tsc = await folder.compile(WALKTHROUGH, {
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
    });
    expect(tsc).toBe('');

    const result = await folder.runWalkthrough(WALKTHROUGH, [t.url]);
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
    // Accept: text/plain with parseAs 'text': the context as the model reads it, typed string.
    expect(result.plainText).toMatch(/^## Scene$/m);
    expect(result.plainText).not.toContain('Tide Court');
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
