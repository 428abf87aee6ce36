/**
 * A game session written against a client GENERATED from /docs/openapi.json (openapi-typescript +
 * openapi-fetch), compiled with `tsc --strict` and no casts by test/e2e/shipping/openapi-client.e2e-spec.ts, then run
 * against the service: `node walkthrough.mjs <baseUrl>`. It prints one JSON line the test checks.
 * (`.mts`, so the repository's own tsc run leaves it alone: ./schema exists only in the test's folder.)
 */
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const baseUrl = process.argv[2];
if (!baseUrl) throw new Error('usage: node walkthrough.mjs <baseUrl>');
const lk = createClient<paths>({ baseUrl });
const cid = 'generated-client';

/** openapi-fetch answers {data} or {error}: the data, or an Error naming the step and the problem. */
function ok<T>(step: string, result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined)
    throw new Error(`${step}: HTTP ${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

/** The context route also speaks text/plain (Accept: text/plain or format=text); by default it answers JSON. */
function json<T extends object>(step: string, body: T | string): T {
  if (typeof body === 'string') throw new Error(`${step}: expected JSON, got text`);
  return body;
}

async function main(): Promise<void> {
  const campaign = ok(
    'create campaign',
    await lk.POST('/v1/campaigns', { body: { id: cid, name: 'The Smugglers of Saltmere' } }),
  );
  const path = { cid };
  ok(
    'tavern',
    await lk.PUT('/v1/campaigns/{cid}/locations/{lid}', {
      params: { path: { ...path, lid: 'tavern' } },
      body: { name: 'The Rusty Anchor', dangerLevel: 'SAFE' },
    }),
  );
  ok(
    'docks',
    await lk.PUT('/v1/campaigns/{cid}/locations/{lid}', {
      params: { path: { ...path, lid: 'docks' } },
      body: { name: 'Saltmere Docks' },
    }),
  );
  const npc = ok(
    'npc',
    await lk.PUT('/v1/campaigns/{cid}/npcs/{nid}', {
      params: { path: { ...path, nid: 'mira' } },
      body: { name: 'Mira', aliases: ['the barkeep'], locationId: 'tavern' },
    }),
  );
  for (const { pid, name } of [
    { pid: 'aria', name: 'Aria' },
    { pid: 'brannoc', name: 'Brannoc' },
  ]) {
    ok(
      `player ${pid}`,
      await lk.PUT('/v1/campaigns/{cid}/players/{pid}', {
        params: { path: { ...path, pid } },
        body: { name, stats: { HP: '14/16', Silver: 9 } },
      }),
    );
  }
  ok(
    'quest',
    await lk.PUT('/v1/campaigns/{cid}/quests/{qid}', {
      params: { path: { ...path, qid: 'relic' } },
      body: { name: 'The Drowned Relic', objectives: [{ id: 'find-map', name: 'Find the map' }] },
    }),
  );

  const header = { 'Idempotency-Key': 'enter-tavern' };
  const entered = ok(
    'enter the tavern',
    await lk.POST('/v1/campaigns/{cid}/commands/change-location', {
      params: { path, header },
      body: { toLocationId: 'tavern' },
    }),
  );
  const again = await lk.POST('/v1/campaigns/{cid}/commands/change-location', {
    params: { path, header },
    body: { toLocationId: 'tavern' },
  });
  const replayed =
    again.response.headers.get('idempotent-replayed') === 'true' && again.data?.version === entered.version;

  const recorded = ok(
    'messages',
    await lk.POST('/v1/campaigns/{cid}/messages', {
      params: { path },
      body: {
        messages: [
          { role: 'player', speaker: 'Aria', content: 'I pay Mira 3 silver and ask about the missing shipment.' },
          {
            role: 'npc',
            speaker: 'Mira',
            content: 'Smugglers moved forty crates to the old lighthouse.',
            npcIds: ['mira'],
          },
          {
            role: 'dm',
            content: 'Mira whispers that the crates bear the seal of the Tide Court.',
            visibility: 'private',
            audience: ['aria'],
          },
        ],
      },
    }),
  );
  const indexes: number[] = recorded.indexes;

  const stale = await lk.POST('/v1/campaigns/{cid}/commands/change-location', {
    params: { path, header: { 'If-Match': String(recorded.version - 1) } },
    body: { toLocationId: 'docks' },
  });
  const staleCode = stale.error?.code ?? null;
  const moved = ok(
    'leave for the docks',
    await lk.POST('/v1/campaigns/{cid}/commands/change-location', {
      params: { path, header: { 'If-Match': String(recorded.version) } },
      body: { toLocationId: 'docks' },
    }),
  );
  const completed = ok(
    'complete objective',
    await lk.POST('/v1/campaigns/{cid}/commands/complete-objective', {
      params: { path },
      body: { questId: 'relic', objectiveId: 'find-map' },
    }),
  );

  const dm = json(
    'dm context',
    ok(
      'dm context',
      await lk.GET('/v1/campaigns/{cid}/context', {
        params: { path, query: { agent: 'dm', budget: 600, minVersion: completed.version, waitMs: 10_000 } },
      }),
    ),
  );
  const used: number = dm.tokens?.used ?? -1;
  const budget: number | null = dm.tokens?.budget ?? null;
  const dmText = dm.sections.flatMap((s) => s.entries.map((e) => e.text)).join('\n');
  const brannoc = json(
    'brannoc context',
    ok(
      'brannoc context',
      await lk.GET('/v1/campaigns/{cid}/context', { params: { path, query: { agent: 'player', viewer: 'brannoc' } } }),
    ),
  );
  const brannocText = brannoc.sections.flatMap((s) => s.entries.map((e) => e.text)).join('\n');
  // The same operation answers text/plain for Accept: text/plain; with parseAs 'text' the data is a string.
  const plainText: string = ok(
    'brannoc text',
    await lk.GET('/v1/campaigns/{cid}/context', {
      params: { path, query: { agent: 'player', viewer: 'brannoc' } },
      headers: { Accept: 'text/plain' },
      parseAs: 'text',
    }),
  );

  const state = ok('campaign', await lk.GET('/v1/campaigns/{cid}', { params: { path } }));
  const quest = state.quests.find((q) => q.id === 'relic');
  const memories = ok(
    'memories',
    await lk.GET('/v1/campaigns/{cid}/memories', {
      params: { path, query: { scope: 'npc', subjectId: 'mira', limit: 5 } },
    }),
  );
  const missing = await lk.GET('/v1/campaigns/{cid}', { params: { path: { cid: 'no-such-campaign' } } });

  console.log(
    JSON.stringify({
      created: campaign.version,
      npcLocation: npc.npc.locationId,
      replayed,
      indexes,
      staleCode,
      moved: moved.version,
      location: state.currentLocationId,
      objectiveCompleted: quest?.objectives.every((o) => o.completed) ?? false,
      processed: state.processedVersion >= completed.version,
      dmSections: dm.sections.map((s) => s.title),
      used,
      budget,
      dmSeesWhisper: dmText.includes('Tide Court'),
      brannocSeesWhisper: brannocText.includes('Tide Court'),
      plainText,
      miraMemories: memories.items.length,
      missing: { status: missing.response.status, code: missing.error?.code ?? null },
    }),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
