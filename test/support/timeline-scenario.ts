import { FixedClock } from '@app/common';
import { scenario } from './scenario';
import { HttpResult, TestApp } from './test-app';

/**
 * The timelines suite's campaign (issue 20, DESIGN §10): one scripted campaign with every kind of event the service
 * knows — locations, NPCs with aliases that move, quests and objectives, acts, ten rounds (so "Previously" is
 * written), the bible with a dm-only part, glossary terms coined, one set by the DM and one hidden, facts (durable,
 * with a TTL that runs out mid-campaign, resolved), players with stats, an account logging in and out, private and
 * dm-only messages, tool calls, and — unless `timelineOps` is off — a retraction, a correction and a deletion.
 * It returns the versions a branch test forks at.
 */

export interface TimelineScenarioOptions {
  perRoleMemory: boolean;
  /** Advanced ten minutes per round when given (the app's clock): the TTL fact expires mid-campaign. */
  clock?: FixedClock;
  /** Retract, correct and delete (the §10 writes); off to run the script on a build without them. */
  timelineOps?: boolean;
  headers?: Record<string, string>;
}

/** The interesting versions of the script, each a version the campaign stood at (all distinct, ascending). */
export interface TimelineVersions {
  setup: number;
  midScene: number;
  afterWorld: number;
  afterRetraction?: number;
  beforeCorrection?: number;
  afterCorrection?: number;
  end: number;
}

export interface TimelineScenario {
  cid: string;
  versions: TimelineVersions;
  /** The retracted message (index and text), when timeline operations ran. */
  retracted?: { index: number; content: string };
  corrected?: { memoryId: string; summary: string; before: string };
  deleted?: { memoryId: string; summary: string };
}

/** Words that occur in the script and that `readEverything` searches for. */
export const SEARCH_QUERIES = ['lighthouse', 'crates', 'Ember', 'storm', 'ledger'];

export const CORRECTION = 'The DM corrects it: the crates held lamp oil, not blades, and the harbour master knew.';

// Round r's scene: where the party stands and what is said there. Round 9's narrator line is the retracted one: it
// mentions no NPC, so only its location memory (and Previously) holds it.
const ROUND_PLACES = ['tavern', 'tavern', 'docks', 'docks', 'tower', 'tavern', 'docks', 'tower', 'tavern', 'docks'];
export const RETRACTED_LINE = 'The lanterns gutter as a cold wind rattles the shutters of the common room.';

function roundMessages(round: number, place: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [
    { role: 'player', speaker: 'Aria', content: `Aria asks about the crates on day ${round}.`, locationId: place },
    {
      role: 'npc',
      speaker: round % 2 ? 'Mira Stone' : 'the Warden',
      content: `Mira says the lighthouse keeper owes her ${round * 3} silver.`,
      locationId: place,
      npcIds: ['mira'],
    },
    {
      role: 'npc',
      speaker: 'Mira Stone',
      content: `Mira whispers to Aria that the ledger is hidden in room ${round}.`,
      locationId: place,
      visibility: 'private',
      audience: ['aria'],
      npcIds: ['mira'],
    },
    {
      role: 'dm',
      content: `DM note: the smugglers move on day ${round + 1}; Vex is their lookout.`,
      locationId: place,
      visibility: 'dm',
    },
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: `roll-${round}`, name: 'roll_dice' }],
      reasoning: `Round ${round}: a perception check decides whether Aria notices the crates.`,
      locationId: place,
    },
    { role: 'tool', toolCallId: `roll-${round}`, content: `{"roll": ${(round * 7) % 20}}`, locationId: place },
    {
      role: 'narrator',
      content:
        round === 9
          ? RETRACTED_LINE
          : `The storm beats on the ${place === 'tower' ? 'lighthouse glass' : 'harbour'} through night ${round}.`,
      locationId: place,
    },
  ];
  if (round === 2)
    out.push({
      role: 'dm',
      content: 'Beyond the harbour lies the Ember Gate, watched over by the Ashen Choir since the old war.',
      locationId: place,
    });
  if (round === 4)
    out.push({
      role: 'narrator',
      content: 'Brannoc finds a Salt Ledger wrapped in oilcloth under the pier.',
      locationId: place,
    });
  if (round >= 6)
    out.push({
      role: 'npc',
      speaker: 'Vex',
      content: `Vex counts ${round * 4} crates and watches the lighthouse.`,
      locationId: place,
      npcIds: ['vex'],
    });
  return out;
}

/** Builds the scripted campaign `cid` over HTTP; waits for the worker at each interesting version. */
export async function buildTimelineCampaign(
  t: TestApp,
  cid: string,
  o: TimelineScenarioOptions,
): Promise<TimelineScenario> {
  const ops = o.timelineOps ?? true;
  const ok = async (method: string, path: string, body?: unknown): Promise<HttpResult> => {
    const res = await t.http(method, `/v1/campaigns/${cid}${path}`, body, o.headers);
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
    return res;
  };
  const version = async () => (await ok('GET', '')).body.version as number;
  const settled = async () => {
    const v = await version();
    const r = await ok('GET', `/context?minVersion=${v}&waitMs=20000`);
    if (r.body.processedVersion < v) throw new Error(`the worker did not catch up to ${v}`);
    return v;
  };

  const created = await t.http(
    'POST',
    '/v1/campaigns',
    { id: cid, name: 'The Saltmarsh Affair', perRoleMemory: o.perRoleMemory },
    o.headers,
  );
  if (created.status !== 201) throw new Error(`create → ${created.status} ${created.text}`);
  await ok('PUT', '/locations/tavern', { name: 'The Gilded Tankard' });
  await ok('PUT', '/locations/docks', { name: 'Saltmarsh Docks', dangerLevel: 'MODERATE' });
  await ok('PUT', '/locations/tower', { name: 'Old Lighthouse', dangerLevel: 'HIGH' });
  await ok('PUT', '/players/aria', { name: 'Aria', stats: { hp: 18, class: 'ranger' } });
  await ok('PUT', '/players/brannoc', { name: 'Brannoc', aliases: ['Bran'], stats: { hp: 24 } });
  await ok('PUT', '/npcs/mira', { name: 'Mira Stone', aliases: ['the Warden'], locationId: 'tavern' });
  await ok('PUT', '/npcs/vex', { name: 'Vex', locationId: 'docks' });
  await ok('PUT', '/quests/relic', {
    name: 'The drowned relic',
    objectives: [
      { id: 'map', name: 'Find the tide map' },
      { id: 'key', name: 'Take the lighthouse key' },
    ],
  });
  await ok('PUT', '/quests/debt', { name: 'Mira’s debt', objectives: [{ id: 'pay', name: 'Pay the keeper' }] });
  await ok('PUT', '/bible', {
    text: 'Saltmarsh is a smugglers’ port; the lighthouse has been dark for ten years.',
    dmOnly: 'The harbour master runs the smuggling ring.',
  });
  await ok('PUT', '/facts/conflict/war', { value: 'Saltmarsh is at war with the sea raiders' });
  await ok('PUT', '/facts/weather/storm', { value: 'A storm closes the harbour', ttlSeconds: 3600 });
  await ok('PUT', '/facts/faction/smugglers', { value: 'Smugglers use the old lighthouse', priority: 5 });
  await ok('POST', '/accounts/aria-acc/login', { agentId: 'agent-aria' });
  await ok('POST', '/commands/change-location', { toLocationId: 'tavern' });
  const versions: Partial<TimelineVersions> = { setup: await settled() };
  const result: Partial<TimelineScenario> = { cid };

  let place = 'tavern';
  for (let round = 1; round <= 10; round++) {
    const to = ROUND_PLACES[round - 1];
    if (to !== place) {
      await ok('POST', '/commands/change-location', { toLocationId: to });
      place = to;
    }
    const messages = roundMessages(round, place);
    const said = (await ok('POST', '/messages', { messages })).body;
    if (round === 3) versions.midScene = said.version;
    if (round === 2) {
      await settled(); // the terms are coined before the DM overrides them
      await ok('PUT', `/glossary/${encodeURIComponent('Ember Gate')}`, {
        definition: 'A sealed sea gate of black basalt; it opens only at midwinter.',
      });
      await ok('DELETE', `/glossary/${encodeURIComponent('Ashen Choir')}`);
    }
    if (round === 3) await ok('POST', '/commands/complete-objective', { questId: 'relic', objectiveId: 'map' });
    if (round === 4)
      await ok('POST', '/commands/update-location-state', { locationId: 'docks', completeEncounter: 'ambush' });
    if (round === 5) {
      await ok('POST', '/commands/progress-act', { actId: 'act-2' });
      versions.afterWorld = await settled();
    }
    if (round === 6) {
      await ok('PUT', '/npcs/vex', { name: 'Vex', aliases: ['the Lookout'], locationId: 'tavern' });
      await ok('PUT', '/players/aria', { name: 'Aria', stats: { hp: 11, class: 'ranger' } });
    }
    if (round === 7) {
      await ok('POST', '/facts/faction/smugglers/resolve', {});
      await ok('POST', '/commands/complete-quest', { questId: 'debt' });
    }
    if (round === 8)
      await ok('PUT', '/npcs/mira', { name: 'Mira Stone', aliases: ['the Warden'], locationId: 'tower' });
    if (round === 9 && ops) {
      // Retract the narrator's line of round 9 (a swipe of the last reply), after the worker has built from it.
      await settled();
      const index = (said.indexes as number[])[messages.findIndex((m) => m.content === RETRACTED_LINE)];
      const r = await ok('POST', '/messages/retract', { indexes: [index], reason: 'swiped' });
      result.retracted = { index, content: RETRACTED_LINE };
      versions.afterRetraction = r.body.version;
      await settled();
    }
    await ok('POST', '/commands/end-round', {});
    o.clock?.advance(10 * 60_000);
  }
  await ok('POST', '/accounts/aria-acc/logout', {});
  await settled();

  if (ops) {
    // Correct the oldest location memory and delete the oldest NPC memory (both exist by now: ten scenes).
    const all = await allMemories(t, cid, o.headers);
    const target = all.filter((m) => m.scope === 'location').at(-1);
    const victim = all.filter((m) => m.scope === 'npc' && m.id !== target?.id).at(-1);
    if (!target || !victim) throw new Error('the scenario wrote no location or no NPC memory');
    versions.beforeCorrection = await version();
    const corrected = await ok('PUT', `/memories/${encodeURIComponent(target.id)}`, { summary: CORRECTION });
    versions.afterCorrection = (await version()) as number;
    result.corrected = { memoryId: target.id, summary: corrected.body.summary ?? CORRECTION, before: target.summary };
    await ok('DELETE', `/memories/${encodeURIComponent(victim.id)}`);
    result.deleted = { memoryId: victim.id, summary: victim.summary };
    await ok('POST', '/messages', {
      messages: [{ role: 'narrator', content: 'Dawn breaks over Saltmarsh; the storm has passed.', locationId: place }],
    });
  }
  versions.end = await settled();
  result.versions = versions as TimelineVersions;
  return result as TimelineScenario;
}

/** Every memory of the campaign, newest first (all pages). */
export async function allMemories(t: TestApp, cid: string, headers?: Record<string, string>, query = '') {
  const out: any[] = [];
  for (let before: string | undefined; ;) {
    const q = [query, 'limit=100', before ? `before=${encodeURIComponent(before)}` : ''].filter(Boolean).join('&');
    const r = await t.http('GET', `/v1/campaigns/${cid}/memories?${q}`, undefined, headers);
    if (r.status !== 200) throw new Error(`GET memories?${q} → ${r.status} ${r.text}`);
    out.push(...r.body.items);
    if (r.body.items.length < 100) return out;
    before = r.body.items[r.body.items.length - 1].id;
  }
}

/** Waits until the campaign's worker has processed its current version. */
export async function caughtUp(t: TestApp, cid: string, headers?: Record<string, string>): Promise<number> {
  const { version } = (await t.http('GET', `/v1/campaigns/${cid}`, undefined, headers)).body;
  const r = await t.http('GET', `/v1/campaigns/${cid}/context?minVersion=${version}&waitMs=20000`, undefined, headers);
  if (r.status !== 200 || r.body.processedVersion < version)
    throw new Error(`${cid}: the worker did not catch up to ${version} (${r.status})`);
  return version;
}

/**
 * A small campaign for the focused §10 specs: the tavern (Mira Stone stands there unless `mira` is false) and the
 * docks, the party in the tavern, where `lines` are said; the worker has caught up when it resolves.
 */
export async function tavernNight(
  t: TestApp,
  cid: string,
  lines: Record<string, unknown>[],
  o: { name?: string; mira?: boolean } = {},
) {
  const s = scenario(t, cid);
  await s.create(o.name ?? 'Tavern night');
  await s.location('tavern', 'The Gilded Tankard');
  await s.location('docks', 'Saltmarsh Docks');
  if (o.mira ?? true) await s.npc('mira', 'Mira Stone', 'tavern');
  await s.move('tavern');
  const said = await s.say(...lines);
  await s.settled();
  return { s, indexes: said.indexes as number[] };
}
