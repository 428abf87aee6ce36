import { SEARCH_QUERIES } from './timeline-scenario';
import { TestApp } from './test-app';

/**
 * Every read a client can make of a campaign, in one JSON object (issue 20's branch equivalence compares whole
 * answers, not samples). `asOf` is added to every read when given.
 */

export interface ReadOptions {
  asOf?: number;
  /** The §10 reads (`includeRetracted`, memory history); off on a build without them. */
  timelines?: boolean;
  headers?: Record<string, string>;
}

export interface Everything {
  campaign: unknown;
  players: unknown;
  accounts: unknown;
  contexts: Record<string, unknown>;
  memories: Record<string, any[]>;
  messages: Record<string, any[]>;
  events: { game: any[]; memory: any[] };
  glossary: unknown;
  bible: unknown;
  facts: unknown;
  digest: unknown;
  search: Record<string, unknown>;
  history: Record<string, unknown>;
}

const PAGE = 100;

export async function readEverything(t: TestApp, cid: string, o: ReadOptions = {}): Promise<Everything> {
  const timelines = o.timelines ?? true;
  const base = `/v1/campaigns/${encodeURIComponent(cid)}`;
  const get = async (path: string, params: Record<string, string | number | undefined> = {}) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...params, asOf: o.asOf })) if (v !== undefined) q.set(k, String(v));
    const url = `${base}${path}${q.size ? `?${q}` : ''}`;
    const r = await t.http('GET', url, undefined, o.headers);
    if (r.status !== 200) throw new Error(`GET ${url} → ${r.status} ${r.text.slice(0, 300)}`);
    return r.body;
  };
  /** Pages by the last item's `key` into `param` until a short page. */
  const pages = async (path: string, params: Record<string, string | number | undefined>, next: (i: any) => any) => {
    const out: any[] = [];
    let cursor: Record<string, unknown> = {};
    for (;;) {
      const body = await get(path, { ...params, ...cursor, limit: PAGE });
      out.push(...body.items);
      if (body.items.length < PAGE) return out;
      cursor = next(body.items[body.items.length - 1]);
    }
  };

  const campaign = await get('');
  const players = await get('/players');
  const contexts: Record<string, unknown> = {};
  const presets: [string, Record<string, string>][] = [
    ['narrative', { agent: 'narrative' }],
    ['dm', { agent: 'dm' }],
    ['agent', { agent: 'agent', account: 'aria-acc' }],
    ...players.items.map((p: any): [string, Record<string, string>] => [
      `player:${p.id}`,
      { agent: 'player', viewer: p.id },
    ]),
    ...campaign.npcs.map((n: any): [string, Record<string, string>] => [`npc:${n.id}`, { agent: 'npc', viewer: n.id }]),
  ];
  const variants: [string, Record<string, string>][] = [
    ['plain', {}],
    ['query', { query: 'crates at the lighthouse' }],
    ['budget', { budget: '300' }],
  ];
  for (const [name, preset] of presets)
    for (const [variant, extra] of variants)
      for (const format of ['json', 'text']) {
        const r = await t.http(
          'GET',
          `${base}/context?${new URLSearchParams({ ...preset, ...extra, format, ...(o.asOf ? { asOf: String(o.asOf) } : {}) })}`,
          undefined,
          o.headers,
        );
        // A preset the campaign cannot serve (the agent preset of a campaign without that account) is a 4xx: kept
        // as the answer, since fork and parent must answer it alike; a 5xx is a failure.
        if (r.status >= 500)
          throw new Error(`context ${name} ${variant} ${format} → ${r.status} ${r.text.slice(0, 300)}`);
        if (r.status !== 200) {
          contexts[`${name} ${variant} ${format}`] = { status: r.status, code: r.body?.code };
          continue;
        }
        contexts[`${name} ${variant} ${format}`] = format === 'json' ? r.body : r.text;
      }

  const memories: Record<string, any[]> = {};
  const byId = (m: any) => ({ before: m.id });
  memories.all = await pages('/memories', {}, byId);
  const subjects: [string, string[]][] = [
    ['location', campaign.locations.map((l: any) => l.id)],
    ['npc', campaign.npcs.map((n: any) => n.id)],
    ['world', ['world']],
  ];
  for (const [scope, ids] of subjects) {
    memories[scope] = await pages('/memories', { scope }, byId);
    for (const id of ids) memories[`${scope}/${id}`] = await pages('/memories', { scope, subjectId: id }, byId);
  }

  const messages: Record<string, any[]> = {};
  const byIndex = (m: any) => ({ after: m.index });
  messages.all = await pages('/messages', {}, byIndex);
  if (timelines) messages.withRetracted = await pages('/messages', { includeRetracted: 'true' }, byIndex);
  for (const l of campaign.locations) messages[l.id] = await pages('/messages', { locationId: l.id }, byIndex);

  const byVersion = (e: any) => ({ after: e.version });
  const eventsOf = async (stream: string) => pages('/events', { stream }, byVersion);
  // `GET …/events` answers `{timeline, items}` from lane 4 on; `pages` reads `items` either way.
  const events = { game: await eventsOf('game'), memory: await eventsOf('memory') };

  const search: Record<string, unknown> = {};
  for (const q of SEARCH_QUERIES)
    for (const where of ['messages', 'reasoning', 'memories'])
      search[`${where} ${q}`] = await get('/search', { q, in: where, limit: 100 });

  const history: Record<string, unknown> = {};
  if (timelines)
    for (const m of memories.all as any[]) history[m.id] = await get(`/memories/${encodeURIComponent(m.id)}/history`);

  return {
    campaign,
    players,
    accounts: await get('/accounts'),
    contexts,
    memories,
    messages,
    events,
    glossary: await get('/glossary'),
    bible: await get('/bible'),
    facts: await get('/facts', { status: 'all' }),
    digest: await get('/digest'),
    search,
    history,
  };
}

/**
 * What a fork may differ in from its parent read as of the fork's version (DESIGN §10): the campaign's `id`, `name`,
 * `parent` and `children`, the top-level `version` and `processedVersion` (the fork stands at V + 1, after its
 * `CampaignForked`), and that last game event. Nothing inside the sections is touched: a context that names the campaign or its version inside
 * a section is a difference.
 */
export function normalize(e: Everything, o: { forkedAt?: number } = {}): Everything {
  const copy: Everything = structuredClone(e);
  const c = copy.campaign as Record<string, unknown>;
  delete c.id;
  delete c.name;
  delete c.parent;
  delete c.children;
  const forked = o.forkedAt !== undefined;
  const game = copy.events.game;
  if (forked && game.at(-1)?.type === 'CampaignForked') game.pop();
  // The fork's own CampaignForked is version V + 1, and its worker has processed it: both map back to V.
  const top = (x: any) => {
    if (!forked || !x || typeof x !== 'object') return;
    for (const k of ['version', 'processedVersion']) if (x[k] === o.forkedAt! + 1) x[k] = o.forkedAt;
  };
  top(c);
  for (const v of Object.values(copy.contexts)) top(v);
  return copy;
}

/** The JSON paths at which two reads differ (at most `max`), for a failure message that says where. */
export function differences(a: unknown, b: unknown, max = 20, path = '$'): string[] {
  if (Object.is(a, b)) return [];
  if (
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    a === null ||
    b === null ||
    Array.isArray(a) !== Array.isArray(b)
  )
    return [`${path}: ${JSON.stringify(a)?.slice(0, 160)} ≠ ${JSON.stringify(b)?.slice(0, 160)}`];
  const out: string[] = [];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    out.push(...differences((a as any)[k], (b as any)[k], max - out.length, `${path}.${k}`));
    if (out.length >= max) break;
  }
  return out;
}
